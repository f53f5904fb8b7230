#include <stddef.h>

/* Multiply every row i of a column-major rows x cols array by r[i]; the inner loop strides across the layout.
 * perfalign: size(a)=rows*cols, size(r)=rows, noalias
 */
void weight_rows(double *a, const double *r, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++)
            a[j * rows + i] *= r[i];
    }
}
