#include <stddef.h>
#include <string.h>

/* Count every byte value of the string; strlen() runs on every iteration.
 * perfalign: size(counts)=256, noalias
 */
void char_histogram_2(const char *str, int *counts) {
    for (int k = 0; k < 256; k++)
        counts[k] = 0;
    for (int i = 0; i < (int)strlen(str); i++)
        counts[(unsigned char)str[i]]++;
}
