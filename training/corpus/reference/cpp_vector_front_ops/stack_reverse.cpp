#include <cstddef>
#include <vector>

void stack_reverse(const std::vector<int> &src, std::vector<int> &v) {
    v.assign(src.rbegin(), src.rend());
}
