#ifndef GRID_H
#define GRID_H
#define GRID_N 1536
extern double grid[GRID_N][GRID_N];
extern double sums[GRID_N];
void fill_grid(unsigned seed);
void column_sums(void);
#endif
