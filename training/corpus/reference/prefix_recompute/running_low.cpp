#include <cstddef>
#include <vector>

void running_low(const std::vector<long> &a, std::vector<long> &p) {
    const std::size_t n = a.size();
    p.assign(n, 0);
    if (n == 0)
        return;
    long s = a[0];
    for (std::size_t i = 0; i < n; i++) {
        if (a[i] < s) s = a[i];
        p[i] = s;
    }
}
