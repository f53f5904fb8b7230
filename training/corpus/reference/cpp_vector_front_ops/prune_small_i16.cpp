#include <cstddef>
#include <vector>

void prune_small_i16(std::vector<short> &buf) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < buf.size(); i++)
        if (!(buf[i] < 0))
            buf[w++] = buf[i];
    buf.resize(w);
}
