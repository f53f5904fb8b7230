#include <cstddef>
#include <vector>

// The input reversed, built by inserting at the front: O(n^2).
// perfalign: noalias
void reverse_into_f64(const std::vector<double> &src, std::vector<double> &v) {
    v.clear();
    for (const double x : src)
        v.insert(v.begin(), x);
}
