#include <stddef.h>

void blend_fields_i32(const int *a, const int *b, int *out, long d0, long d1, long d2) {
    for (long i = 0; i < d0; i++)
        for (long j = 0; j < d1; j++)
            for (long k = 0; k < d2; k++)
                out[(i * d1 + j) * d2 + k] = a[(i * d1 + j) * d2 + k] - 3 * b[(i * d1 + j) * d2 + k];
}
