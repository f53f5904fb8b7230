/* Never returns. */
int main(void)
{
    volatile unsigned long n = 0;
    for (;;)
        n++;
}
