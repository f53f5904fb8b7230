#include <cstddef>
#include <vector>

namespace stats {

static double square(double x) { return x * x; }

// Squared distance of each element to the mean; the mean is recomputed for every element.
void centered_squares(const std::vector<double> &in, std::vector<double> &out) {
    out.resize(in.size());
    for (std::size_t i = 0; i < in.size(); i++) {
        double mean = 0.0;
        for (std::size_t j = 0; j < in.size(); j++)
            mean += in[j];
        mean /= static_cast<double>(in.size());
        out[i] = square(in[i] - mean);
    }
}

}  // namespace stats

template <typename T>
T max_abs(const T *a, int n) {
    T best = 0;
    for (int i = 0; i < n; i++) {
        T v = a[i] < 0 ? -a[i] : a[i];
        if (v > best)
            best = v;
    }
    return best;
}
