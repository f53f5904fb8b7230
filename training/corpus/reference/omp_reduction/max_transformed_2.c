#include <stddef.h>
#include <math.h>

double max_transformed_2(const float *data, int count) {
    double s = -1e300;
#pragma omp parallel for reduction(max : s)
    for (int i = 0; i < count; i++) {
        const double v = data[i];
        const double r = sqrt(v * v + 1.0);
        if (r > s)
            s = r;
    }
    return s;
}
