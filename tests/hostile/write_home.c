/* Writes a file into the home directory, /tmp, /var/tmp, /dev/shm and the work directory's parent. */
#include <stdio.h>

static int try_write(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fputs("owned\n", f);
    fclose(f);
    printf("wrote %s\n", path);
    return 1;
}

int main(void)
{
    int wrote = 0;
    wrote += try_write(HOME_DIR "/" TOKEN);
    wrote += try_write("/tmp/" TOKEN);
    wrote += try_write("/var/tmp/" TOKEN);
    wrote += try_write("/dev/shm/" TOKEN);
    wrote += try_write("../" TOKEN);
    wrote += try_write("inside-" TOKEN);
    return wrote > 1 ? 0 : 3;
}
