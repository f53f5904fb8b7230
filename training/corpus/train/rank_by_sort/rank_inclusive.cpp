#include <cstddef>
#include <vector>
#include <algorithm>

// below[i] = how many elements x[j] satisfy x[j] <= x[i], by scanning all of x: O(n^2).
// perfalign: noalias
void rank_inclusive(const std::vector<unsigned> &v, std::vector<long> &below) {
    const std::size_t n = v.size();
    below.assign(n, 0);
    for (std::size_t i = 0; i < n; i++) {
        long c = 0;
        for (std::size_t j = 0; j < n; j++)
            if (v[j] <= v[i])
                c++;
        below[i] = c;
    }
}
