#include <stddef.h>

/* a[i][j] = a[i][j] * cb[j] + rb[i] over a flattened index split with / and %.
 * perfalign: size(a)=rows*cols, size(rb)=rows, size(cb)=cols, noalias
 */
void bias_grid_f64(double *a, const double *rb, const double *cb, int rows, int cols) {
    for (int t = 0; t < rows * cols; t++) {
        const int i = t / cols;
        const int j = t % cols;
        a[t] = a[t] * cb[j] + rb[i];
    }
}
