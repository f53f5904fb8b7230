#include <cstddef>

// Sum of squares of each column of a row-major rows x cols array; the inner loop strides across the layout.
// perfalign: size(a)=rows*cols, size(out)=cols, noalias
void column_totals_i64(const long *a, long *out, int rows, int cols) {
    for (int j = 0; j < cols; j++) {
        long acc = 0;
        for (int i = 0; i < rows; i++)
            acc += a[i * cols + j] * a[i * cols + j];
        out[j] = acc;
    }
}
