int count_vowels(const char *s) {
    int count = 0;
    for (; *s; s++)
        if (*s == 'a' || *s == 'e' || *s == 'i' || *s == 'o')
            count++;
    return count;
}
