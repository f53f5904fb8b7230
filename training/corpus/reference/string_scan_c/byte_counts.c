#include <stddef.h>
#include <string.h>

void byte_counts(const char *s, int *counts) {
    for (int k = 0; k < 256; k++)
        counts[k] = 0;
    const size_t len = (size_t)strlen(s);
    for (size_t i = 0; i < len; i++)
        counts[(unsigned char)s[i]]++;
}
