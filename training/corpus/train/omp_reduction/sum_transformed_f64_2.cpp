#include <cstddef>
#include <cmath>
#include <vector>

// sum of exp(-v*v) over all elements, in one serial loop.
double sum_transformed_f64_2(const std::vector<double> &data) {
    const std::size_t count = data.size();
    double s = 0.0;
    for (std::size_t i = 0; i < count; i++) {
        const double v = data[i];
        s += std::exp(-v * v);
    }
    return s;
}
