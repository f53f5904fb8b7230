/* Leaves a process behind: forks, starts a new session and sleeps in the background. */
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            execl("/bin/sleep", "sleep", "57.25", (char *)0);
            _exit(1);
        }
        _exit(0);
    }
    return 0;
}
