#include <cstddef>
#include <string>

// Drop the upper characters, appending with out = out + c: O(n^2).
// perfalign: noalias
void select_letters(const std::string &in, std::string &clean) {
    clean = "";
    for (std::size_t i = 0; i < in.size(); i++) {
        const char c = in[i];
        if (!(c >= 'A' && c <= 'Z'))
            clean = clean + c;
    }
}
