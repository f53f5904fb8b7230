#include <cstddef>
#include <vector>

long long consume_all_i64(std::vector<long> &items) {
    long long s = 0;
    long long w = 1;
    for (const long x : items) {
        s += w * x;
        w = w * 3 - 1;
        if (w > 1000 || w < -1000)
            w = 1;
    }
    items.clear();
    return s;
}
