#include <cstddef>
#include <vector>

double consume_all(std::vector<float> &items) {
    double s = 0;
    double w = 1;
    for (const float x : items) {
        s += w * x;
        w = w * 2 - 1;
        if (w > 1000 || w < -1000)
            w = 1;
    }
    items.clear();
    return s;
}
