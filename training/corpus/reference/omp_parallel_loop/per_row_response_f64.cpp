#include <cstddef>
#include <cmath>
#include <vector>

void per_row_response_f64(const double *a, double *out, std::size_t rows, std::size_t cols) {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < rows; i++) {
        double s = 0.0;
        for (std::size_t j = 0; j < cols; j++) {
            const double v = a[i * cols + j];
            s += std::sqrt(std::fabs(v)) + std::exp(v);
        }
        out[i] = s;
    }
}
