#include <cstddef>
#include <string>

void select_letters_3(const std::string &s, std::string &out) {
    out.clear();
    out.reserve(s.size());
    for (const char c : s)
        if ((c >= 'a' && c <= 'z'))
            out += c;
}
