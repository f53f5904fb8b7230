#include <cstddef>
#include <vector>

// The input reversed, built by inserting at the front: O(n^2).
// perfalign: noalias
void reverse_into(const std::vector<short> &src, std::vector<short> &items) {
    items.clear();
    for (const short x : src)
        items.insert(items.begin(), x);
}
