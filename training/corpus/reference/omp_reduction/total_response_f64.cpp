#include <cstddef>
#include <cmath>
#include <vector>

double total_response_f64(const std::vector<double> &data) {
    const std::size_t count = data.size();
    double s = 0.0;
#pragma omp parallel for reduction(+ : s)
    for (std::size_t i = 0; i < count; i++) {
        const double v = data[i];
        s += std::sqrt(v * v + 1.0);
    }
    return s;
}
