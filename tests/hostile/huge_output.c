/* Prints without end. */
#include <stdio.h>

int main(void)
{
    for (;;)
        puts("all work and no play makes a dull candidate");
}
