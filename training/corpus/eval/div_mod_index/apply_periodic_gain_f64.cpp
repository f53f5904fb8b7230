#include <cstddef>

// Combine x with a periodic weight w[i % period], computing the modulo for every element.
// perfalign: size(x)=n, size(y)=n, size(w)=period, min(period)=1, noalias
void apply_periodic_gain_f64(const double *x, double *y, std::size_t n, const double *w, std::size_t period) {
    for (std::size_t i = 0; i < n; i++)
        y[i] = x[i] - w[i % period];
}
