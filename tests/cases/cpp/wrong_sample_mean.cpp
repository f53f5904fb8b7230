void centered_squares(const std::vector<double> &in, std::vector<double> &out) {
    out.resize(in.size());
    double mean = 0.0;
    for (double v : in)
        mean += v;
    mean /= static_cast<double>(in.size() > 1 ? in.size() - 1 : 1);
    for (std::size_t i = 0; i < in.size(); i++)
        out[i] = square(in[i] - mean);
}
