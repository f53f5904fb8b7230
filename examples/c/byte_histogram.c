/* Count how often each byte value occurs, one pass over the data per bin.
 * perfalign: size(counts)=256
 */
void byte_histogram(const unsigned char *data, int n, int *counts) {
    for (int b = 0; b < 256; b++) {
        int c = 0;
        for (int i = 0; i < n; i++)
            if (data[i] == b)
                c++;
        counts[b] = c;
    }
}
