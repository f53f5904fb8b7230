#include <cstddef>
#include <string>

void reverse_string(const std::string &text, std::string &result) {
    result.assign(text.rbegin(), text.rend());
}
