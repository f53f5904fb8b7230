#include <cstddef>
#include <string>

void swap_case_copy(const std::string &in, std::string &clean) {
    clean.resize(in.size());
    for (std::size_t i = 0; i < in.size(); i++) {
        const char c = in[i];
        clean[i] = static_cast<char>(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
    }
}
