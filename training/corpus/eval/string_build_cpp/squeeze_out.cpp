#include <cstddef>
#include <string>

// Remove the lower characters in place, erasing them one at a time: O(n^2).
// perfalign: noalias
void squeeze_out(std::string &in) {
    std::size_t i = 0;
    while (i < in.size()) {
        const char c = in[i];
        if (c >= 'a' && c <= 'z')
            in.erase(i, 1);
        else
            i++;
    }
}
