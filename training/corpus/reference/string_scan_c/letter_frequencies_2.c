#include <stddef.h>
#include <string.h>

void letter_frequencies_2(const char *str, long *counts) {
    for (int k = 0; k < 256; k++)
        counts[k] = 0;
    const long len = (long)strlen(str);
    for (long i = 0; i < len; i++)
        counts[(unsigned char)str[i]]++;
}
