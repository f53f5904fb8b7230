#include <cstddef>
#include <string>

// The string reversed, built by inserting each character at the front: O(n^2).
// perfalign: noalias
void reverse_string(const std::string &text, std::string &result) {
    result.clear();
    for (std::size_t i = 0; i < text.size(); i++)
        result.insert(result.begin(), text[i]);
}
