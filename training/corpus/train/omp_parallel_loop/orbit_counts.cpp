#include <cstddef>
#include <cmath>
#include <vector>

// Iterations of z = z^2 + c (at most 200) until |z| > 2, for each c; every iteration is independent.
// perfalign: noalias
void orbit_counts(const std::vector<double> &c0, std::vector<int> &iters) {
    const std::size_t n = c0.size();
    iters.assign(n, 0);
    for (std::size_t i = 0; i < n; i++) {
        double z = 0.0;
        int k = 0;
        while (k < 200 && z * z <= 4.0) {
            z = z * z + c0[i];
            k++;
        }
        iters[i] = k;
    }
}
