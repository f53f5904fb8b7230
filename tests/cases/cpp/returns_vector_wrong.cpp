std::vector<double> moving_average(const std::vector<double> &x, int w) {
    std::vector<double> out;
    if (w <= 0 || static_cast<int>(x.size()) < w)
        return out;
    double s = 0.0;
    for (int k = 0; k < w; k++)
        s += x[k];
    out.push_back(s / w);
    for (std::size_t i = w; i + 1 < x.size(); i++) {
        s += x[i] - x[i - w];
        out.push_back(s / w);
    }
    return out;
}
