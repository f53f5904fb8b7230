#include <cstddef>

// a[i][j] = a[i][j] * cb[j] + rb[i] over a flattened index split with / and %.
// perfalign: size(a)=rows*cols, size(rb)=rows, size(cb)=cols, noalias
void bias_grid_i64(long *a, const long *rb, const long *cb, int rows, int cols) {
    for (int t = 0; t < rows * cols; t++) {
        const int i = t / cols;
        const int j = t % cols;
        a[t] = a[t] * cb[j] + rb[i];
    }
}
