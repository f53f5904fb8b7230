#include <numeric>

void centered_squares(const std::vector<double> &in, std::vector<double> &out) {
    out.resize(in.size());
    if (in.empty())
        return;
    const double mean = std::accumulate(in.begin(), in.end(), 0.0) / static_cast<double>(in.size());
    for (std::size_t i = 0; i < in.size(); i++)
        out[i] = square(in[i] - mean);
}
