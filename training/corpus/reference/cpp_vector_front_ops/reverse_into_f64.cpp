#include <cstddef>
#include <vector>

void reverse_into_f64(const std::vector<double> &src, std::vector<double> &v) {
    v.assign(src.rbegin(), src.rend());
}
