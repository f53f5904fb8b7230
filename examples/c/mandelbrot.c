/* Escape-time iteration counts of the Mandelbrot set on an n-by-n grid over [-2,1]x[-1.5,1.5].
 * perfalign: size(iters)=n*n
 */
void mandelbrot(int *iters, int n) {
    for (int py = 0; py < n; py++)
        for (int px = 0; px < n; px++) {
            double cx = -2.0 + 3.0 * px / n, cy = -1.5 + 3.0 * py / n;
            double x = 0.0, y = 0.0;
            int k = 0;
            while (k < 200 && x * x + y * y <= 4.0) {
                double t = x * x - y * y + cx;
                y = 2.0 * x * y + cy;
                x = t;
                k++;
            }
            iters[py * n + px] = k;
        }
}
