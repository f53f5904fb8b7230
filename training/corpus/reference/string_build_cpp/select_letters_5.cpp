#include <cstddef>
#include <string>

void select_letters_5(const std::string &text, std::string &result) {
    result.clear();
    result.reserve(text.size());
    for (const char c : text)
        if (((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            result += c;
}
