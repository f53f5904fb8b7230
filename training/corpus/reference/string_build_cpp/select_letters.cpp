#include <cstddef>
#include <string>

void select_letters(const std::string &in, std::string &clean) {
    clean.clear();
    clean.reserve(in.size());
    for (const char c : in)
        if (!(c >= 'A' && c <= 'Z'))
            clean += c;
}
