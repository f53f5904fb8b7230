#include <cstddef>
#include <string>

void select_letters_4(const std::string &in, std::string &clean) {
    clean.clear();
    clean.reserve(in.size());
    for (const char c : in)
        if ((c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'))
            clean += c;
}
