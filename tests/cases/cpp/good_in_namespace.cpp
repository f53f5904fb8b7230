namespace stats {
void centered_squares(const std::vector<double> &in, std::vector<double> &out) {
    double mean = 0.0;
    for (double v : in)
        mean += v;
    mean /= static_cast<double>(in.size());
    out.assign(in.size(), 0.0);
    for (std::size_t i = 0; i < in.size(); i++)
        out[i] = (in[i] - mean) * (in[i] - mean);
}
}
