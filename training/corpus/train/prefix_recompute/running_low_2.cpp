#include <cstddef>

// out[i] = min of in[0..i], recomputed from scratch for every i.
// perfalign: noalias
void running_low_2(const float *a, float *p, std::size_t n) {
    for (std::size_t i = 0; i < n; i++) {
        float s = a[0];
        for (std::size_t j = 0; j <= i; j++)
            if (a[j] < s) s = a[j];
        p[i] = s;
    }
}
