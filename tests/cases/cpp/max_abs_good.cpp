template <typename T>
T max_abs(const T *a, int n) {
    T best = 0;
    for (int i = 0; i < n; i++) {
        T v = a[i] < 0 ? -a[i] : a[i];
        best = v > best ? v : best;
    }
    return best;
}
