#include <stddef.h>

void outer_update(int *a, const int *rb, const int *cb, long rows, long cols) {
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++)
            a[i * cols + j] = a[i * cols + j] * cb[j] + rb[i];
}
