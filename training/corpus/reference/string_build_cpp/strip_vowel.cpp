#include <cstddef>
#include <string>

void strip_vowel(std::string &line) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < line.size(); i++) {
        const char c = line[i];
        if (!(c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'))
            line[w++] = c;
    }
    line.resize(w);
}
