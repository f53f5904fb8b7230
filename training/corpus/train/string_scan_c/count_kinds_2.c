#include <stddef.h>
#include <string.h>

/* Count lower, upper, hex_letter and other characters; strlen() runs on every iteration.
 * perfalign: size(counts)=4, noalias
 */
void count_kinds_2(const char *text, unsigned *counts) {
    for (int k = 0; k < 4; k++)
        counts[k] = 0;
    for (long i = 0; i < (long)strlen(text); i++)
        {
        const char c = text[i];
        if (c >= 'a' && c <= 'z')
            counts[0]++;
        else if (c >= 'A' && c <= 'Z')
            counts[1]++;
        else if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
            counts[2]++;
        else
            counts[3]++;
    }
}
