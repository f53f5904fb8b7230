#include <stddef.h>
#include <string.h>

/* Count lower, upper, space and other characters; strlen() runs on every iteration.
 * perfalign: size(counts)=4, noalias
 */
void count_kinds(const char *line, unsigned *counts) {
    for (int k = 0; k < 4; k++)
        counts[k] = 0;
    for (long i = 0; i < (long)strlen(line); i++)
        {
        const char c = line[i];
        if (c >= 'a' && c <= 'z')
            counts[0]++;
        else if (c >= 'A' && c <= 'Z')
            counts[1]++;
        else if (c == ' ')
            counts[2]++;
        else
            counts[3]++;
    }
}
