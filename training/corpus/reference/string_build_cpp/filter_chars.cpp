#include <cstddef>
#include <string>

void filter_chars(const std::string &line, std::string &buf) {
    buf.clear();
    buf.reserve(line.size());
    for (const char c : line)
        if (!(c == ' '))
            buf += c;
}
