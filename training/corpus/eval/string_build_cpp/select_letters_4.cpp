#include <cstddef>
#include <string>

// Keep the vowel characters, appending with out = out + c: O(n^2).
// perfalign: noalias
void select_letters_4(const std::string &in, std::string &clean) {
    clean = "";
    for (std::size_t i = 0; i < in.size(); i++) {
        const char c = in[i];
        if ((c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'))
            clean = clean + c;
    }
}
