template <typename T>
T max_abs(const T *a, int n) {
    T best = 0;
    for (int i = 0; i < n; i++)
        if (a[i] > best)
            best = a[i];
    return best;
}
