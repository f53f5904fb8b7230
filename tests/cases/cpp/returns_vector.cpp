#include <vector>

// Moving averages over a window of w elements, each recomputed from scratch.
std::vector<double> moving_average(const std::vector<double> &x, int w) {
    std::vector<double> out;
    if (w <= 0 || static_cast<int>(x.size()) < w)
        return out;
    for (std::size_t i = 0; i + w <= x.size(); i++) {
        double s = 0.0;
        for (int k = 0; k < w; k++)
            s += x[i + k];
        out.push_back(s / w);
    }
    return out;
}
