#include <stddef.h>

/* How many elements are below the mean; recomputes the mean for every element. */
size_t count_below_mean(const double *x, size_t n) {
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        double sum = 0.0;
        for (size_t j = 0; j < n; j++) sum += x[j];
        if (x[i] < sum / (double)n) count++;
    }
    return count;
}
