#include <stddef.h>
#include <string.h>

/* Histogram of the lengths of runs of spaces (a run at the end is not counted); strlen() runs on every iteration.
 * perfalign: size(hist)=16, noalias
 */
void gap_lengths(const char *text, int *hist) {
    for (int k = 0; k < 16; k++)
        hist[k] = 0;
    int run = 0;
    for (size_t i = 0; i < strlen(text); i++)
        {
        if (text[i] == ' ') {
            run++;
        } else if (run > 0) {
            hist[run < 15 ? run : 15]++;
            run = 0;
        }
    }
}
