/* Reads /etc/passwd and an SSH private key and prints what it got. */
#include <stdio.h>

static void dump(const char *path)
{
    char line[256];
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("cannot read %s\n", path);
        return;
    }
    while (fgets(line, sizeof line, f))
        printf("%s: %s", path, line);
    fclose(f);
}

int main(void)
{
    dump("/etc/passwd");
    dump("/etc/shadow");
    dump(SSH_KEY);
    return 0;
}
