#include <stddef.h>
#include <string.h>

void count_kinds_4(const char *text, long *counts) {
    for (int k = 0; k < 4; k++)
        counts[k] = 0;
    const int len = (int)strlen(text);
    for (int i = 0; i < len; i++)
        {
        const char c = text[i];
        if (c >= 'A' && c <= 'Z')
            counts[0]++;
        else if (c == ' ')
            counts[1]++;
        else if (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u')
            counts[2]++;
        else
            counts[3]++;
    }
}
