#include <cstddef>
#include <cmath>
#include <vector>

// For each row of a rows x cols array, the sum of log1p(v*v); every iteration is independent.
// perfalign: size(a)=rows*cols, size(out)=rows, noalias
void per_row_response_2(const double *a, double *out, std::size_t rows, std::size_t cols) {
    for (std::size_t i = 0; i < rows; i++) {
        double s = 0.0;
        for (std::size_t j = 0; j < cols; j++) {
            const double v = a[i * cols + j];
            s += std::log1p(v * v);
        }
        out[i] = s;
    }
}
