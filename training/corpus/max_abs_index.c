#include <stddef.h>
#include <math.h>

/* Index of the element with the largest absolute value (first one on ties). */
size_t max_abs_index(const double *x, size_t n) {
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        int better = 1;
        for (size_t j = 0; j < n; j++)
            if (fabs(x[j]) > fabs(x[i]) || (fabs(x[j]) == fabs(x[i]) && j < i)) better = 0;
        if (better) best = i;
    }
    return best;
}
