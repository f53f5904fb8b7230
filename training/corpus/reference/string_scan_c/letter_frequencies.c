#include <stddef.h>
#include <string.h>

void letter_frequencies(const char *text, unsigned *counts) {
    for (int k = 0; k < 256; k++)
        counts[k] = 0;
    const size_t len = (size_t)strlen(text);
    for (size_t i = 0; i < len; i++)
        counts[(unsigned char)text[i]]++;
}
