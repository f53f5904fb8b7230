#include <stddef.h>

/* How many elements lie above the mean; the reduction is recomputed for every element. */
long above_average(const float *a, long n) {
    long count = 0;
    for (long i = 0; i < n; i++) {
        double total = 0.0;
        for (long j = 0; j < n; j++)
            total += a[j];
        if (a[i] * (double)(n) > total)
            count++;
    }
    return count;
}
