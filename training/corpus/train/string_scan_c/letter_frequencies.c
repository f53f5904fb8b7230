#include <stddef.h>
#include <string.h>

/* Count every byte value of the string; strlen() runs on every iteration.
 * perfalign: size(counts)=256, noalias
 */
void letter_frequencies(const char *text, unsigned *counts) {
    for (int k = 0; k < 256; k++)
        counts[k] = 0;
    for (size_t i = 0; i < strlen(text); i++)
        counts[(unsigned char)text[i]]++;
}
