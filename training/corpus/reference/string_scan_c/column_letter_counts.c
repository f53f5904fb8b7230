#include <stddef.h>
#include <string.h>

void column_letter_counts(const char *line, long *slots) {
    for (int k = 0; k < 8; k++)
        slots[k] = 0;
    const int len = (int)strlen(line);
    for (int i = 0; i < len; i++)
        if (line[i] != ' ')
        slots[i % 8]++;
}
