#include <cstddef>
#include <string>

// Map every character, appending with out = out + c: O(n^2).
// perfalign: noalias
void swap_case_copy(const std::string &in, std::string &clean) {
    clean = "";
    for (std::size_t i = 0; i < in.size(); i++) {
        const char c = in[i];
        clean = clean + static_cast<char>(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
    }
}
