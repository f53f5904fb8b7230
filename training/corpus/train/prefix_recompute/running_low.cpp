#include <cstddef>
#include <vector>

// out[i] = min of in[0..i], recomputed from scratch for every i.
// perfalign: noalias
void running_low(const std::vector<long> &a, std::vector<long> &p) {
    const std::size_t n = a.size();
    p.assign(n, 0);
    for (std::size_t i = 0; i < n; i++) {
        long s = a[0];
        for (std::size_t j = 0; j <= i; j++)
            if (a[j] < s) s = a[j];
        p[i] = s;
    }
}
