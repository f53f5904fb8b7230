#include <cstddef>
#include <vector>

// Consume the vector from the front with erase(begin()), summing with changing weights: O(n^2).
// perfalign: noalias
double pop_and_sum(std::vector<double> &items) {
    double s = 0;
    double w = 1;
    while (!items.empty()) {
        s += w * items.front();
        w = w * 2 - 1;
        if (w > 1000 || w < -1000)
            w = 1;
        items.erase(items.begin());
    }
    return s;
}
