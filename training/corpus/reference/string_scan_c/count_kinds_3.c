#include <stddef.h>
#include <string.h>

void count_kinds_3(const char *str, long *counts) {
    for (int k = 0; k < 4; k++)
        counts[k] = 0;
    const int len = (int)strlen(str);
    for (int i = 0; i < len; i++)
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
