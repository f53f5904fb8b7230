#include <cstddef>
#include <string>

void remove_chars(std::string &line) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < line.size(); i++) {
        const char c = line[i];
        if (!(c == ' '))
            line[w++] = c;
    }
    line.resize(w);
}
