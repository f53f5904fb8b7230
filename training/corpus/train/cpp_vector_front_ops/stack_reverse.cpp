#include <cstddef>
#include <vector>

// The input reversed, built by inserting at the front: O(n^2).
// perfalign: noalias
void stack_reverse(const std::vector<int> &src, std::vector<int> &v) {
    v.clear();
    for (const int x : src)
        v.insert(v.begin(), x);
}
