#include <stddef.h>
#include <string.h>

/* Number of vowels in a NUL-terminated string. */
int count_vowels(const char *s) {
    int count = 0;
    for (size_t i = 0; i < strlen(s); i++)
        if (strchr("aeiou", s[i]) && s[i] != '\0')
            count++;
    return count;
}

/* Histogram of small integers into bins (values are taken modulo bins). */
void histogram(const int *values, size_t n, long *bins, int nbins) {
    for (int b = 0; b < nbins; b++)
        bins[b] = 0;
    for (size_t i = 0; i < n; i++) {
        int v = values[i] % nbins;
        if (v < 0)
            v += nbins;
        bins[v]++;
    }
}

typedef float real_t;

/* y = alpha * x + y over float data */
void saxpy(real_t *y, const real_t *x, real_t alpha, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        y[i] = alpha * x[i] + y[i];
}
