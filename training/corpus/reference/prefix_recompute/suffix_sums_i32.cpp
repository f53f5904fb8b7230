#include <cstddef>

void suffix_sums_i32(const int *data, long *result, std::size_t n) {
    long s = 0;
    for (std::size_t i = n; i-- > 0;) {
        s += data[i];
        result[i] = s;
    }
}
