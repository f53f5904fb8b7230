#include <cstddef>
#include <string>

void select_letters_2(const std::string &s, std::string &out) {
    out.clear();
    out.reserve(s.size());
    for (const char c : s)
        if ((c == ' '))
            out += c;
}
