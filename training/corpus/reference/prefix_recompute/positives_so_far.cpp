#include <cstddef>
#include <vector>

void positives_so_far(const std::vector<long> &in, std::vector<long> &out) {
    const std::size_t n = in.size();
    out.assign(n, 0);
    long s = 0;
    for (std::size_t i = 0; i < n; i++) {
        if (in[i] > 0) s++;
        out[i] = s;
    }
}
