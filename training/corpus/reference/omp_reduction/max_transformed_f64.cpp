#include <cstddef>
#include <cmath>
#include <vector>

double max_transformed_f64(const std::vector<double> &vals) {
    const std::size_t len = vals.size();
    double s = -1e300;
#pragma omp parallel for reduction(max : s)
    for (std::size_t i = 0; i < len; i++) {
        const double v = vals[i];
        const double r = std::sin(v) * v;
        if (r > s)
            s = r;
    }
    return s;
}
