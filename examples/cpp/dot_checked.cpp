#include <cstddef>
#include <vector>

// Dot product of two vectors with the bounds checked by at() on every access and a serial sum.
double dot_checked(const std::vector<double> &a, const std::vector<double> &b) {
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); i++)
        s += a.at(i) * b.at(i);
    return s;
}
