#include <cstddef>
#include <string>

void strip_hex_letter(std::string &in) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < in.size(); i++) {
        const char c = in[i];
        if (!((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            in[w++] = c;
    }
    in.resize(w);
}
