#include <math.h>
#include <stdio.h>
#include "grid.h"

int main(void)
{
    fill_grid(7);
    column_sums();
    for (int j = 0; j < GRID_N; j++) {
        double s = 0.0;
        for (int i = 0; i < GRID_N; i++)
            s += grid[i][j];
        if (fabs(s - sums[j]) > 1e-9 * fabs(s) + 1e-12) {
            printf("column %d: got %.17g, expected %.17g\n", j, sums[j], s);
            return 1;
        }
    }
    puts("ok");
    return 0;
}
