#include <cstddef>

// Sum of each row of a column-major rows x cols array; the inner loop strides across the layout.
// perfalign: size(a)=rows*cols, size(out)=rows, noalias
void row_energy(const int *a, long *out, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        long acc = 0;
        for (int j = 0; j < cols; j++)
            acc += a[j * rows + i];
        out[i] = acc;
    }
}
