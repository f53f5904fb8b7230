#include <stddef.h>

/* Multiply every row i of a row-major nr x nc array by r[i]; the inner loop strides across the layout.
 * perfalign: size(a)=nr*nc, size(r)=nr, noalias
 */
void weight_rows_i64(long *a, const long *r, size_t nr, size_t nc) {
    for (size_t j = 0; j < nc; j++) {
        for (size_t i = 0; i < nr; i++)
            a[i * nc + j] *= r[i];
    }
}
