#include <stddef.h>

/* Sum of squared differences between all pairs i < j. */
double sum_of_squares_diff(const double *a, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            s += (a[i] - a[j]) * (a[i] - a[j]);
    return s;
}
