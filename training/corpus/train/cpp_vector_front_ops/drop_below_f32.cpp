#include <cstddef>
#include <vector>

// Remove the elements below -0.5, erasing them one at a time: O(n^2).
void drop_below_f32(std::vector<float> &items) {
    for (std::size_t i = 0; i < items.size();) {
        if (items[i] < -0.5)
            items.erase(items.begin() + static_cast<long>(i));
        else
            i++;
    }
}
