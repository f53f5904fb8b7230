#include <cstddef>
#include <vector>

void stack_reverse_2(const std::vector<long> &src, std::vector<long> &buf) {
    buf.assign(src.rbegin(), src.rend());
}
