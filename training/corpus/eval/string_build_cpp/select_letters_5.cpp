#include <cstddef>
#include <string>

// Keep the hex_letter characters, appending with out = out + c: O(n^2).
// perfalign: noalias
void select_letters_5(const std::string &text, std::string &result) {
    result = "";
    for (std::size_t i = 0; i < text.size(); i++) {
        const char c = text[i];
        if (((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            result = result + c;
    }
}
