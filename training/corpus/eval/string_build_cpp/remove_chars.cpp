#include <cstddef>
#include <string>

// Remove the space characters in place, erasing them one at a time: O(n^2).
// perfalign: noalias
void remove_chars(std::string &line) {
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == ' ')
            line.erase(i, 1);
        else
            i++;
    }
}
