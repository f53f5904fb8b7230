#include <cstddef>
#include <vector>

// Remove the elements below 0.0, erasing them one at a time: O(n^2).
// perfalign: noalias
void drop_below_f64(std::vector<double> &queue) {
    for (std::size_t i = 0; i < queue.size();) {
        if (queue[i] < 0.0)
            queue.erase(queue.begin() + static_cast<long>(i));
        else
            i++;
    }
}
