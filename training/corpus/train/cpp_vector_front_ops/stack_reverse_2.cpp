#include <cstddef>
#include <vector>

// The input reversed, built by inserting at the front: O(n^2).
// perfalign: noalias
void stack_reverse_2(const std::vector<long> &src, std::vector<long> &buf) {
    buf.clear();
    for (const long x : src)
        buf.insert(buf.begin(), x);
}
