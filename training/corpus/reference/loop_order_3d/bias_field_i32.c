#include <stddef.h>

void bias_field_i32(int *g, const int *bias, long d0, long d1, long d2) {
    for (long i = 0; i < d0; i++)
        for (long j = 0; j < d1; j++)
            for (long k = 0; k < d2; k++)
                g[(i * d1 + j) * d2 + k] += bias[k];
}
