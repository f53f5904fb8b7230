#include <cstddef>
#include <unordered_map>

// Number of distinct values, by comparing elements pairwise: O(n^2).
// perfalign: size(codes)=n
long unique_count_i32(const int *codes, int n) {
    long c = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            if (codes[j] == codes[i]) {
                seen = 1;
                break;
            }
        if (!seen)
            c++;
    }
    return c;
}
