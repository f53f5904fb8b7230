#include <cstddef>
#include <string>

// Map every character, appending with out = out + c: O(n^2).
void capitalize_all(const std::string &s, std::string &out) {
    out = "";
    for (std::size_t i = 0; i < s.size(); i++) {
        const char c = s[i];
        out = out + static_cast<char>(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    }
}
