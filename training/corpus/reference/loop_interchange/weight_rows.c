#include <stddef.h>

void weight_rows(double *a, const double *r, int rows, int cols) {
    for (int j = 0; j < cols; j++) {
        for (int i = 0; i < rows; i++)
            a[j * rows + i] *= r[i];
    }
}
