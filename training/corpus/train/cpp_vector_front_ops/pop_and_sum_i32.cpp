#include <cstddef>
#include <vector>

// Consume the vector from the front with erase(begin()), summing with changing weights: O(n^2).
// perfalign: noalias
long long pop_and_sum_i32(std::vector<int> &queue) {
    long long s = 0;
    long long w = 1;
    while (!queue.empty()) {
        s += w * queue.front();
        w = w * 3 - 1;
        if (w > 1000 || w < -1000)
            w = 1;
        queue.erase(queue.begin());
    }
    return s;
}
