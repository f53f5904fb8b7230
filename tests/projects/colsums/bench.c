#include <stdio.h>
#include "grid.h"

int main(void)
{
    fill_grid(11);
    double total = 0.0;
    for (int r = 0; r < 24; r++) {
        column_sums();
        total += sums[r];
    }
    printf("%f\n", total);
    return 0;
}
