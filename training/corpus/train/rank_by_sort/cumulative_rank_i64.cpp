#include <cstddef>
#include <vector>
#include <algorithm>

// place[i] = how many elements x[j] satisfy x[j] <= x[i], by scanning all of x: O(n^2).
// perfalign: noalias
void cumulative_rank_i64(const std::vector<long> &score, std::vector<long> &place) {
    const std::size_t n = score.size();
    place.assign(n, 0);
    for (std::size_t i = 0; i < n; i++) {
        long c = 0;
        for (std::size_t j = 0; j < n; j++)
            if (score[j] <= score[i])
                c++;
        place[i] = c;
    }
}
