#include <cstddef>
#include <string>

// Remove the hex_letter characters in place, erasing them one at a time: O(n^2).
// perfalign: noalias
void strip_hex_letter(std::string &in) {
    std::size_t i = 0;
    while (i < in.size()) {
        const char c = in[i];
        if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
            in.erase(i, 1);
        else
            i++;
    }
}
