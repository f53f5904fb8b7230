#include <cstddef>
#include <vector>
#include <algorithm>

void cumulative_rank_i64(const std::vector<long> &score, std::vector<long> &place) {
    const std::size_t n = score.size();
    place.assign(n, 0);
    std::vector<long> s_(score);
    std::sort(s_.begin(), s_.end());
    for (std::size_t i = 0; i < n; i++) {
        const long lo = static_cast<long>(std::upper_bound(s_.begin(), s_.end(), score[i]) - s_.begin());
        place[i] = lo;
    }
}
