#include <cstddef>
#include <vector>

void drop_below_i32(std::vector<int> &buf) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < buf.size(); i++)
        if (!(buf[i] < 0))
            buf[w++] = buf[i];
    buf.resize(w);
}
