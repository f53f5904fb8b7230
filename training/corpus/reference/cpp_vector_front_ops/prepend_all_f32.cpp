#include <cstddef>
#include <vector>

void prepend_all_f32(const std::vector<float> &src, std::vector<float> &items) {
    items.assign(src.rbegin(), src.rend());
}
