#include <cstddef>
#include <cmath>

// Evaluate the polynomial c[0..degree] at every x[i] with pow().
// perfalign: size(c)=degree+1, size(x)=n, size(y)=n, range(x)=-1..1, range(c)=-2..2, noalias
void poly_values(const double *c, std::size_t degree, const double *x, double *y, std::size_t n) {
    for (std::size_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (std::size_t k = 0; k <= degree; k++)
            acc += c[k] * std::pow(x[i], static_cast<double>(k));
        y[i] = acc;
    }
}
