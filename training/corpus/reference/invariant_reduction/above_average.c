#include <stddef.h>

long above_average(const float *a, long n) {
    long count = 0;
    double total = 0.0;
    for (long j = 0; j < n; j++)
        total += a[j];
    for (long i = 0; i < n; i++) {
        if (a[i] * (double)(n) > total)
            count++;
    }
    return count;
}
