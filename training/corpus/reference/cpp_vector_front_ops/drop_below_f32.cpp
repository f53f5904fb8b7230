#include <cstddef>
#include <vector>

void drop_below_f32(std::vector<float> &items) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < items.size(); i++)
        if (!(items[i] < -0.5))
            items[w++] = items[i];
    items.resize(w);
}
