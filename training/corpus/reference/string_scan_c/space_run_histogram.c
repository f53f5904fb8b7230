#include <stddef.h>
#include <string.h>

void space_run_histogram(const char *line, int *hist) {
    for (int k = 0; k < 16; k++)
        hist[k] = 0;
    int run = 0;
    const int len = (int)strlen(line);
    for (int i = 0; i < len; i++)
        {
        if (line[i] == ' ') {
            run++;
        } else if (run > 0) {
            hist[run < 15 ? run : 15]++;
            run = 0;
        }
    }
}
