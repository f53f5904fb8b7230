#include <cmath>
#include <cstddef>
#include <vector>

// Standardise every element; the mean and the standard deviation are recomputed per element.
void zscore(const std::vector<double> &in, std::vector<double> &out) {
    out.resize(in.size());
    for (std::size_t i = 0; i < in.size(); i++) {
        double mean = 0.0;
        for (std::size_t j = 0; j < in.size(); j++)
            mean += in[j];
        mean /= static_cast<double>(in.size());
        double var = 0.0;
        for (std::size_t j = 0; j < in.size(); j++)
            var += (in[j] - mean) * (in[j] - mean);
        double sd = std::sqrt(var / static_cast<double>(in.size()));
        out[i] = sd > 0.0 ? (in[i] - mean) / sd : 0.0;
    }
}
