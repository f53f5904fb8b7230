#include <cstddef>
#include <cmath>

// Evaluate the polynomial c[0..degree] at every x[i] with pow().
// perfalign: size(c)=degree+1, size(x)=n, size(y)=n, range(x)=-1..1, range(c)=-2..2, noalias
void evaluate_polynomial_2(const float *c, std::size_t degree, const float *x, float *y, std::size_t n) {
    for (std::size_t i = 0; i < n; i++) {
        float acc = 0.0f;
        for (std::size_t k = 0; k <= degree; k++)
            acc += c[k] * std::pow(x[i], static_cast<float>(k));
        y[i] = acc;
    }
}
