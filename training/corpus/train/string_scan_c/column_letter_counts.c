#include <stddef.h>
#include <string.h>

/* For each position modulo 8, how many characters there are not spaces; strlen() runs on every iteration.
 * perfalign: size(slots)=8, noalias
 */
void column_letter_counts(const char *line, long *slots) {
    for (int k = 0; k < 8; k++)
        slots[k] = 0;
    for (int i = 0; i < (int)strlen(line); i++)
        if (line[i] != ' ')
        slots[i % 8]++;
}
