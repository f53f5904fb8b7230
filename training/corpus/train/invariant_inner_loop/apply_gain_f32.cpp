#include <cstddef>

// Scale x by a gain computed from coef[0..k); the gain is recomputed for every element.
// perfalign: size(x)=n, size(y)=n, size(coef)=k
void apply_gain_f32(const float *x, float *y, std::size_t n, const float *coef, std::size_t k) {
    for (std::size_t i = 0; i < n; i++) {
        float g = 0.0f;
        for (std::size_t j = 0; j < k; j++)
            g += coef[j];
        y[i] = x[i] * g;
    }
}
