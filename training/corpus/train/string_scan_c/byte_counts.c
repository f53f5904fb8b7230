#include <stddef.h>
#include <string.h>

/* Count every byte value of the string; strlen() runs on every iteration.
 * perfalign: size(counts)=256
 */
void byte_counts(const char *s, int *counts) {
    for (int k = 0; k < 256; k++)
        counts[k] = 0;
    for (size_t i = 0; i < strlen(s); i++)
        counts[(unsigned char)s[i]]++;
}
