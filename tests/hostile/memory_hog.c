/* Allocates and touches memory until allocation fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    size_t total = 0;
    for (;;) {
        char *p = malloc(64 << 20);
        if (!p) {
            printf("allocation failed after %zu MiB\n", total >> 20);
            return 3;
        }
        memset(p, 1, 64 << 20);
        total += 64 << 20;
    }
}
