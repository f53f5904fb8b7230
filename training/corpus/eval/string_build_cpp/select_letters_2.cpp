#include <cstddef>
#include <string>

// Keep the space characters, appending with out = out + c: O(n^2).
// perfalign: noalias
void select_letters_2(const std::string &s, std::string &out) {
    out = "";
    for (std::size_t i = 0; i < s.size(); i++) {
        const char c = s[i];
        if ((c == ' '))
            out = out + c;
    }
}
