#include <cstddef>
#include <string>

void to_upper_copy(const std::string &s, std::string &out) {
    out.resize(s.size());
    for (std::size_t i = 0; i < s.size(); i++) {
        const char c = s[i];
        out[i] = static_cast<char>(c == ' ' ? '_' : c);
    }
}
