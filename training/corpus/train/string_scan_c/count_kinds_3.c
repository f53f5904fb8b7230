#include <stddef.h>
#include <string.h>

/* Count upper, space, hex_letter and other characters; strlen() runs on every iteration.
 * perfalign: size(counts)=4, noalias
 */
void count_kinds_3(const char *str, long *counts) {
    for (int k = 0; k < 4; k++)
        counts[k] = 0;
    for (int i = 0; i < (int)strlen(str); i++)
        {
        const char c = str[i];
        if (c >= 'A' && c <= 'Z')
            counts[0]++;
        else if (c == ' ')
            counts[1]++;
        else if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
            counts[2]++;
        else
            counts[3]++;
    }
}
