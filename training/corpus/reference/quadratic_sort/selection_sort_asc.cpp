#include <cstddef>
#include <algorithm>

void selection_sort_asc(long *data, std::size_t len) {
    std::sort(data, data + len);
}
