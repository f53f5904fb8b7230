#include <cstddef>
#include <vector>

void reverse_into(const std::vector<short> &src, std::vector<short> &items) {
    items.assign(src.rbegin(), src.rend());
}
