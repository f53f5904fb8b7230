#include <cstddef>
#include <vector>
#include <algorithm>

// pos[i] = how many elements x[j] satisfy x[j] > x[i], by scanning all of x: O(n^2).
// perfalign: noalias
void beaten_by(const std::vector<unsigned> &a, std::vector<long> &pos) {
    const std::size_t len = a.size();
    pos.assign(len, 0);
    for (std::size_t i = 0; i < len; i++) {
        long c = 0;
        for (std::size_t j = 0; j < len; j++)
            if (a[j] > a[i])
                c++;
        pos[i] = c;
    }
}
