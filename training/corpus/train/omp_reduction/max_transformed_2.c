#include <stddef.h>
#include <math.h>

/* max of sqrt(v*v + 1) over all elements, in one serial loop. */
double max_transformed_2(const float *data, int count) {
    double s = -1e300;
    for (int i = 0; i < count; i++) {
        const double v = data[i];
        const double r = sqrt(v * v + 1.0);
        if (r > s)
            s = r;
    }
    return s;
}
