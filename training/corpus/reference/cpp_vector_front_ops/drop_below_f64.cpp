#include <cstddef>
#include <vector>

void drop_below_f64(std::vector<double> &queue) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < queue.size(); i++)
        if (!(queue[i] < 0.0))
            queue[w++] = queue[i];
    queue.resize(w);
}
