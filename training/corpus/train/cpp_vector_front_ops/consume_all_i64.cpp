#include <cstddef>
#include <vector>

// Consume the vector from the front with erase(begin()), summing with changing weights: O(n^2).
// perfalign: noalias
long long consume_all_i64(std::vector<long> &items) {
    long long s = 0;
    long long w = 1;
    while (!items.empty()) {
        s += w * items.front();
        w = w * 3 - 1;
        if (w > 1000 || w < -1000)
            w = 1;
        items.erase(items.begin());
    }
    return s;
}
