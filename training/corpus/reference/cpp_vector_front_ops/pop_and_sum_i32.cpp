#include <cstddef>
#include <vector>

long long pop_and_sum_i32(std::vector<int> &queue) {
    long long s = 0;
    long long w = 1;
    for (const int x : queue) {
        s += w * x;
        w = w * 3 - 1;
        if (w > 1000 || w < -1000)
            w = 1;
    }
    queue.clear();
    return s;
}
