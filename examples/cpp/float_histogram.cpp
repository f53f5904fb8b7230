#include <cstddef>
#include <vector>

// Histogram of values in [0, 1) into 64 bins (values outside are clamped), scanning the data once per bin.
void float_histogram(const std::vector<float> &v, std::vector<int> &bins) {
    const int nb = 64;
    bins.assign(nb, 0);
    for (int b = 0; b < nb; b++)
        for (std::size_t i = 0; i < v.size(); i++) {
            int k = static_cast<int>(v[i] * nb);
            if (k < 0)
                k = 0;
            if (k >= nb)
                k = nb - 1;
            if (k == b)
                bins[b]++;
        }
}
