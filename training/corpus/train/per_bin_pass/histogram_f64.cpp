#include <cstddef>

// Histogram of 32 bins; the data is scanned once per bin.
// perfalign: size(h)=32, noalias
void histogram_f64(const double *v, int n, long *h) {
    for (int b = 0; b < 32; b++) {
        h[b] = 0;
        for (int i = 0; i < n; i++) {
            const int k = static_cast<int>((v[i] + 1.0) * 16.0) < 0 ? 0 : (static_cast<int>((v[i] + 1.0) * 16.0) >= 32 ? 31 : static_cast<int>((v[i] + 1.0) * 16.0));
            if (k == b)
                h[b]++;
        }
    }
}
