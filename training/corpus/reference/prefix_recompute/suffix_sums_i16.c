#include <stddef.h>

void suffix_sums_i16(const short *in, int *out, int n) {
    int s = 0;
    for (int i = n; i-- > 0;) {
        s += in[i];
        out[i] = s;
    }
}
