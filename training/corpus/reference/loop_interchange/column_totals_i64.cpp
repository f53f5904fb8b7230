#include <cstddef>

void column_totals_i64(const long *a, long *out, int rows, int cols) {
    for (int j = 0; j < cols; j++)
        out[j] = 0;
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++)
            out[j] += a[i * cols + j] * a[i * cols + j];
    }
}
