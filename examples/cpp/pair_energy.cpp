#include <cstddef>
#include <vector>

// Soft pairwise interaction energy of points on a line: inherently O(n^2), and every pair is independent.
double pair_energy(const std::vector<double> &x) {
    double e = 0.0;
    for (std::size_t i = 0; i < x.size(); i++)
        for (std::size_t j = i + 1; j < x.size(); j++) {
            double d = x[i] - x[j];
            e += 1.0 / (1.0 + d * d);
        }
    return e;
}
