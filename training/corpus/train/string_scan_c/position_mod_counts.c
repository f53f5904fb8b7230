#include <stddef.h>
#include <string.h>

/* For each position modulo 10, how many characters there are not spaces; strlen() runs on every iteration.
 * perfalign: size(slots)=10, noalias
 */
void position_mod_counts(const char *line, unsigned *slots) {
    for (int k = 0; k < 10; k++)
        slots[k] = 0;
    for (int i = 0; i < (int)strlen(line); i++)
        if (line[i] != ' ')
        slots[i % 10]++;
}
