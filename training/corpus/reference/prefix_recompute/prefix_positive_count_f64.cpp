#include <cstddef>

void prefix_positive_count_f64(const double *data, long *result, long n) {
    long s = 0;
    for (long i = 0; i < n; i++) {
        if (data[i] > 0) s++;
        result[i] = s;
    }
}
