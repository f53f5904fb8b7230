#include <cstddef>
#include <vector>
#include <algorithm>

// rank[i] = how many elements x[j] satisfy x[j] > x[i], by scanning all of x: O(n^2).
// perfalign: noalias
void beaten_by_i64(const std::vector<long> &x, std::vector<long> &rank) {
    const std::size_t n = x.size();
    rank.assign(n, 0);
    for (std::size_t i = 0; i < n; i++) {
        long c = 0;
        for (std::size_t j = 0; j < n; j++)
            if (x[j] > x[i])
                c++;
        rank[i] = c;
    }
}
