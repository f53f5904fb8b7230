#include <cstddef>
#include <string>

void squeeze_out(std::string &in) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < in.size(); i++) {
        const char c = in[i];
        if (!(c >= 'a' && c <= 'z'))
            in[w++] = c;
    }
    in.resize(w);
}
