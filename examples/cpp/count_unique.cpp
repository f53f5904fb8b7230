#include <cstddef>
#include <vector>

// Number of distinct values, checking each element against all earlier ones: O(n^2).
int count_unique(const std::vector<int> &v) {
    int unique = 0;
    for (std::size_t i = 0; i < v.size(); i++) {
        bool seen = false;
        for (std::size_t j = 0; j < i; j++)
            if (v[j] == v[i]) {
                seen = true;
                break;
            }
        if (!seen)
            unique++;
    }
    return unique;
}
