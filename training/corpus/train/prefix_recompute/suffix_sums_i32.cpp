#include <cstddef>

// out[i] = sum of in[i..n), recomputed from scratch for every i.
// perfalign: noalias
void suffix_sums_i32(const int *data, long *result, std::size_t n) {
    for (std::size_t i = 0; i < n; i++) {
        long s = 0;
        for (std::size_t j = n; j-- > i;)
            s += data[j];
        result[i] = s;
    }
}
