#include <stddef.h>
#include <string.h>

/* Count every byte value of the string; strlen() runs on every iteration.
 * perfalign: size(counts)=256, noalias
 */
void letter_frequencies_2(const char *str, long *counts) {
    for (int k = 0; k < 256; k++)
        counts[k] = 0;
    for (long i = 0; i < (long)strlen(str); i++)
        counts[(unsigned char)str[i]]++;
}
