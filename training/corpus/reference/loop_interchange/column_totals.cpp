#include <cstddef>

void column_totals(const float *a, float *out, std::size_t m, std::size_t n) {
    for (std::size_t j = 0; j < n; j++) {
        float acc = 0.0f;
        for (std::size_t i = 0; i < m; i++)
            acc += a[j * m + i];
        out[j] = acc;
    }
}
