#include <stddef.h>

int any_sign_flip(const double *x, long n) {
    for (long i = 0; i + 1 < n; i++)
        if ((x[i] < 0) != (x[i + 1] < 0))
            return 1;
    return 0;
}
