int count_vowels(const char *s) {
    int count = 0;
    for (; *s; s++)
        switch (*s) {
        case 'a': case 'e': case 'i': case 'o': case 'u':
            count++;
        }
    return count;
}
