#include <stddef.h>
#include <string.h>

void gap_lengths(const char *text, int *hist) {
    for (int k = 0; k < 16; k++)
        hist[k] = 0;
    int run = 0;
    const size_t len = (size_t)strlen(text);
    for (size_t i = 0; i < len; i++)
        {
        if (text[i] == ' ') {
            run++;
        } else if (run > 0) {
            hist[run < 15 ? run : 15]++;
            run = 0;
        }
    }
}
