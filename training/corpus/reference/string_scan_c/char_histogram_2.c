#include <stddef.h>
#include <string.h>

void char_histogram_2(const char *str, int *counts) {
    for (int k = 0; k < 256; k++)
        counts[k] = 0;
    const int len = (int)strlen(str);
    for (int i = 0; i < len; i++)
        counts[(unsigned char)str[i]]++;
}
