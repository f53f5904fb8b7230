#include <stddef.h>
#include <string.h>

void char_histogram(const char *s, long *counts) {
    for (int k = 0; k < 256; k++)
        counts[k] = 0;
    const size_t len = (size_t)strlen(s);
    for (size_t i = 0; i < len; i++)
        counts[(unsigned char)s[i]]++;
}
