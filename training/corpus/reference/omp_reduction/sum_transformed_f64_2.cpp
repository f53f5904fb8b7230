#include <cstddef>
#include <cmath>
#include <vector>

double sum_transformed_f64_2(const std::vector<double> &data) {
    const std::size_t count = data.size();
    double s = 0.0;
#pragma omp parallel for reduction(+ : s)
    for (std::size_t i = 0; i < count; i++) {
        const double v = data[i];
        s += std::exp(-v * v);
    }
    return s;
}
