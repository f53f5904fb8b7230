#include <vector>
namespace k {
struct Kernels {
    static double sum_sq(const double *a, int n);
    double scale = 1.0;
    double scaled(const double *a, int n) const;
};
double Kernels::sum_sq(const double *a, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return s;
}
double Kernels::scaled(const double *a, int n) const { return a[0] * scale * n; }
}
