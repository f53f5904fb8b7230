#include <cstddef>
#include <cmath>
#include <vector>

// Each element divided by the largest magnitude; the reduction is recomputed for every element.
// perfalign: noalias
void scale_to_unit(const std::vector<double> &a, std::vector<double> &b) {
    const std::size_t n = a.size();
    b.assign(n, 0.0);
    for (std::size_t i = 0; i < n; i++) {
        double big = 0.0;
        for (std::size_t j = 0; j < n; j++)
            if (std::fabs(a[j]) > big)
                big = std::fabs(a[j]);
        b[i] = big > 0.0 ? a[i] / big : 0.0;
    }
}
