#include <cstddef>
#include <cmath>
#include <vector>

// max of sqrt(|v|) + exp(v) over all elements, in one serial loop.
double max_transformed(const std::vector<float> &x) {
    const std::size_t n = x.size();
    double s = -1e300;
    for (std::size_t i = 0; i < n; i++) {
        const double v = x[i];
        const double r = std::sqrt(std::fabs(v)) + std::exp(v);
        if (r > s)
            s = r;
    }
    return s;
}
