#include <cstddef>
#include <string>

void capitalize_all(const std::string &s, std::string &out) {
    out.resize(s.size());
    for (std::size_t i = 0; i < s.size(); i++) {
        const char c = s[i];
        out[i] = static_cast<char>(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    }
}
