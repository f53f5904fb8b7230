#include <stddef.h>
#include <string.h>

/* Histogram of the lengths of runs of spaces (a run at the end is not counted); strlen() runs on every iteration.
 * perfalign: size(hist)=16, noalias
 */
void space_run_histogram_2(const char *line, long *hist) {
    for (int k = 0; k < 16; k++)
        hist[k] = 0;
    int run = 0;
    for (long i = 0; i < (long)strlen(line); i++)
        {
        if (line[i] == ' ') {
            run++;
        } else if (run > 0) {
            hist[run < 15 ? run : 15]++;
            run = 0;
        }
    }
}
