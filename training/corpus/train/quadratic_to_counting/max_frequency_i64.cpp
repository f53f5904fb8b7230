#include <cstddef>
#include <vector>
#include <unordered_map>

// How often the most frequent value occurs, by comparing elements pairwise: O(n^2).
long max_frequency_i64(const std::vector<long> &codes) {
    const std::size_t n = codes.size();
    long best = 0;
    for (std::size_t i = 0; i < n; i++) {
        long k = 0;
        for (std::size_t j = 0; j < n; j++)
            if (codes[j] == codes[i])
                k++;
        if (k > best)
            best = k;
    }
    return best;
}
