#include <cstddef>

void row_energy(const int *a, long *out, int rows, int cols) {
    for (int i = 0; i < rows; i++)
        out[i] = 0;
    for (int j = 0; j < cols; j++) {
        for (int i = 0; i < rows; i++)
            out[i] += a[j * rows + i];
    }
}
