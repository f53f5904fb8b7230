#include <cstddef>
#include <vector>

// out[i] = count_pos of in[0..i], recomputed from scratch for every i.
void positives_so_far(const std::vector<long> &in, std::vector<long> &out) {
    const std::size_t n = in.size();
    out.assign(n, 0);
    for (std::size_t i = 0; i < n; i++) {
        long s = 0;
        for (std::size_t j = 0; j <= i; j++)
            if (in[j] > 0) s++;
        out[i] = s;
    }
}
