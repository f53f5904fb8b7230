#include <cstddef>
#include <unordered_map>

long unique_count_i32(const int *codes, int n) {
    std::unordered_map<int, long> seen_;
    seen_.reserve(n);
    for (int i = 0; i < n; i++)
        seen_[codes[i]]++;
    long c = 0;
    for (const auto &e : seen_)
        c++;
    return c;
}
