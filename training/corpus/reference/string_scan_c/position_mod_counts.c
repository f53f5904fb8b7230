#include <stddef.h>
#include <string.h>

void position_mod_counts(const char *line, unsigned *slots) {
    for (int k = 0; k < 10; k++)
        slots[k] = 0;
    const int len = (int)strlen(line);
    for (int i = 0; i < len; i++)
        if (line[i] != ' ')
        slots[i % 10]++;
}
