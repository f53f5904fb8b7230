#include <cstddef>

void shift_grid(int *g, const int *bias, int d0, int d1, int d2) {
    for (int i = 0; i < d0; i++)
        for (int j = 0; j < d1; j++)
            for (int k = 0; k < d2; k++)
                g[(i * d1 + j) * d2 + k] += bias[k];
}
