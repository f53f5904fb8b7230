#include <cstddef>
#include <vector>

// trace(A * B) for n-by-n row-major matrices, by forming the whole product first: O(n^3) for an O(n^2) answer.
// perfalign: size(a)=n*n, size(b)=n*n
double trace_of_product(const double *a, const double *b, int n) {
    std::vector<double> c(static_cast<std::size_t>(n) * n, 0.0);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                c[i * n + j] += a[i * n + k] * b[k * n + j];
    double t = 0.0;
    for (int i = 0; i < n; i++)
        t += c[i * n + i];
    return t;
}
