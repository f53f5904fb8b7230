#include <cstddef>
#include <string>

// Remove the vowel characters in place, erasing them one at a time: O(n^2).
// perfalign: noalias
void strip_vowel(std::string &line) {
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u')
            line.erase(i, 1);
        else
            i++;
    }
}
