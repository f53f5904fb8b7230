#include <cstddef>

void prefix_positive_count(const float *a, long *p, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
        if (a[i] > 0) s++;
        p[i] = s;
    }
}
