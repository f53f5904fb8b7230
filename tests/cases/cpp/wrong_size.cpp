void centered_squares(const std::vector<double> &in, std::vector<double> &out) {
    out.assign(in.size() + 1, 0.0);
    if (in.empty())
        return;
    double mean = 0.0;
    for (double v : in)
        mean += v;
    mean /= static_cast<double>(in.size());
    for (std::size_t i = 0; i < in.size(); i++)
        out[i] = square(in[i] - mean);
}
