#include <cstddef>
#include <vector>

// The input reversed, built by inserting at the front: O(n^2).
// perfalign: noalias
void prepend_all_f32(const std::vector<float> &src, std::vector<float> &items) {
    items.clear();
    for (const float x : src)
        items.insert(items.begin(), x);
}
