#include <stddef.h>

/* Whether neighbouring elements ever change sign; counts every change first. */
int any_sign_flip(const double *x, long n) {
    int flips = 0;
    for (long i = 0; i + 1 < n; i++)
        if ((x[i] < 0) != (x[i + 1] < 0))
            flips++;
    return flips > 0;
}
