#include <cstddef>

// a[i][j] = a[i][j] * cb[j] + rb[i] over a flattened index split with / and %.
// perfalign: size(a)=rows*cols, size(rb)=rows, size(cb)=cols, noalias
void bias_grid_f32(float *a, const float *rb, const float *cb, long rows, long cols) {
    for (long t = 0; t < rows * cols; t++) {
        const long i = t / cols;
        const long j = t % cols;
        a[t] = a[t] * cb[j] + rb[i];
    }
}
