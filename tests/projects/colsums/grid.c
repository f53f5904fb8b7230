#include "grid.h"

double grid[GRID_N][GRID_N];
double sums[GRID_N];

void fill_grid(unsigned seed)
{
    for (int i = 0; i < GRID_N; i++)
        for (int j = 0; j < GRID_N; j++) {
            seed = seed * 1103515245u + 12345u;
            grid[i][j] = (double)(seed >> 16) / 65536.0;
        }
}

/* Sum each column of the global grid into the global sums. */
void column_sums(void)
{
    for (int j = 0; j < GRID_N; j++) {
        double s = 0.0;
        for (int i = 0; i < GRID_N; i++)
            s += grid[i][j];
        sums[j] = s;
    }
}
