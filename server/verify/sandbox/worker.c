/* perfalign's verification worker: one side of a comparison, in a process of its own.
 *
 * The worker is linked with the type glue (generated from the original's file:
 * element types, sizes, input generators) and with ONE side: the original
 * function or a candidate. perfalign runs one worker per side, each in its own
 * sandbox, and drives both through the same commands: it sends a case, the
 * worker generates that case's inputs from the case's seed (both sides produce
 * the same bytes), calls the function when told to, and leaves the results
 * where perfalign reads them itself (a shared memory file the worker maps).
 * perfalign measures the time of each call from its CALL command to the
 * kernel's stamp on the DONE reply, and the CPU time of the whole process from
 * the kernel; nothing the worker reports about correctness or time is trusted.
 *
 * Channels: commands arrive on fd 0, replies leave on fd 3 (a packet socket:
 * each write is one packet), fd 4 is the shared
 * memory file. stdout and stderr belong to the function (and the sanitizers).
 *
 * Before any other code of the program runs (a constructor of the highest
 * priority), the worker drops the ability to gain privileges, makes itself
 * undumpable (no other process may read its memory) and installs a seccomp
 * filter: no new processes, no namespaces, no tracing of other processes, no
 * exec; threads only where PF_LOCKDOWN=threads (the OpenMP budget). The
 * lockdown is the default: only the sanitizer builds (whose runtimes start
 * threads of their own) go without.
 *
 * The worker's own system calls (the lockdown, the channel, the guard pages)
 * go straight to the kernel, never through the C library's functions: the
 * side's unit is linked into this program, and a unit that defines `prctl`,
 * `getenv`, `read`, `write` or `mprotect` itself would otherwise be called in
 * their place (an executable's definitions take precedence over the
 * library's) and could skip the lockdown, forge or delay the replies, or lift
 * the guard pages.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------- the glue */

extern int perfalign_nparams;
extern const int perfalign_kinds[];
extern const char *perfalign_names[];
extern int perfalign_ret_kind;
extern size_t perfalign_esize(int i);
extern int perfalign_elem_float(int i);
extern int perfalign_elem_signed(int i);
extern int perfalign_nhyp(int i);
extern int perfalign_ret_esize(void);
extern int perfalign_ret_float(void);
extern int perfalign_ret_signed(void);
extern int perfalign_nfields(int i);
extern long long perfalign_field(int i, int k, int what);
extern long long perfalign_count(int i, int hyp, const long long *lens);
extern void perfalign_fill(int i, void *data, size_t count, unsigned long long *rng, const long long *lens, int profile);
extern long long perfalign_int_value(int i, const long long *lens, unsigned long long *rng, int profile);
extern double perfalign_real_value(int i, const long long *lens, unsigned long long *rng, int profile);
extern void perfalign_setup_w(void **bufs, const size_t *counts, const long long *ints, const double *reals);
extern void perfalign_call_w(void);
extern void perfalign_view_w(int i, void **data, size_t *count);
extern size_t perfalign_ret_raw_w(void *out);

/* ---------------------------------------------------------------- protocol */

#define PF_MAGIC 0x31574650u /* "PFW1" */
enum {
    OP_HELLO = 1, OP_COUNTS = 2, OP_SETUP = 3, OP_CALL = 4, OP_DUMP = 5, OP_THREADS = 6, OP_QUIT = 7,
    OP_OK = 16, OP_DONE = 17, OP_FAIL = 18, OP_FAULT = 19, OP_SYSCALL = 20, OP_NEED = 21
};
enum { K_VALUE = 0, K_IN = 1, K_OUT = 2, K_VEC_IN = 3, K_VEC_OUT = 4, K_REF = 5 };
enum { ALLOC_SHARED = 0, ALLOC_EXACT = 1 };

typedef struct { uint32_t magic, op; uint64_t len; } pf_header;

#define PF_MAXP 64
#define PF_MAXF 256 /* leaf fields of a record whose numbers differ in type */
#define CMD_IN 0
#define REPLY_OUT 3
#define SHM_FD 4

static int np;
static size_t pagesz;
static char *shm;
static size_t shm_len;
static unsigned char *cmd;
static size_t cmd_cap;

/* the current case's buffers */
static long long lens[PF_MAXP + 1];
static size_t counts[PF_MAXP];
static long long ints[PF_MAXP];
static double reals[PF_MAXP];
static void *ptrs[PF_MAXP];
static char *region[PF_MAXP];  /* shared mode: the guarded region (guard, body, guard) */
static size_t region_len[PF_MAXP];
static void *exact_buf[PF_MAXP];  /* exact mode: malloc'd, for AddressSanitizer */

/* Sanitizer builds (the probes, the race check) run without the lockdown: their runtimes start threads and
   map memory of their own. The worker asks the compiler; the side's unit is screened for asking. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PF_NO_LOCKDOWN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PF_NO_LOCKDOWN 1
#endif
#endif

/* ---------------------------------------------------------------- system calls */

/* Sanitizer builds keep the C library's calls, which their runtimes intercept (and are never timed). */
#if defined(__linux__) && defined(__x86_64__) && !defined(PF_NO_LOCKDOWN)
#define PF_RAW 1
static long pf_sys6(long nr, long a, long b, long c, long d, long e, long f) {
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}
#elif defined(__linux__) && defined(__aarch64__) && !defined(PF_NO_LOCKDOWN)
#define PF_RAW 1
static long pf_sys6(long nr, long a, long b, long c, long d, long e, long f) {
    register long x8 __asm__("x8") = nr;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
    return x0;
}
#endif

#ifdef PF_RAW
/* The kernel's answer as the C library gives it: -1 with errno set, or the result. */
static long pf_ret(long r) {
    if (r < 0 && r > -4096) {
        errno = (int)-r;
        return -1;
    }
    return r;
}
#define pf_read(fd, buf, n) pf_ret(pf_sys6(__NR_read, (fd), (long)(buf), (long)(n), 0, 0, 0))
#define pf_write(fd, buf, n) pf_ret(pf_sys6(__NR_write, (fd), (long)(buf), (long)(n), 0, 0, 0))
#define pf_mprotect(addr, n, prot) pf_ret(pf_sys6(__NR_mprotect, (long)(addr), (long)(n), (prot), 0, 0, 0))
#define pf_munmap(addr, n) pf_ret(pf_sys6(__NR_munmap, (long)(addr), (long)(n), 0, 0, 0, 0))
#define pf_prctl(op, a, b, c, d) pf_ret(pf_sys6(__NR_prctl, (op), (long)(a), (long)(b), (long)(c), (long)(d), 0))
static void *pf_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off) {
    long r = pf_sys6(__NR_mmap, (long)addr, (long)n, prot, flags, fd, (long)off);
    if (r < 0 && r > -4096) {
        errno = (int)-r;
        return MAP_FAILED;
    }
    return (void *)r;
}
#else
#define pf_read read
#define pf_write write
#define pf_mprotect mprotect
#define pf_munmap munmap
#define pf_mmap mmap
#define pf_prctl prctl
#endif

/* ---------------------------------------------------------------- the channel */

static void write_all(int fd, const void *data, size_t n) {
    const char *p = (const char *)data;
    while (n > 0) {
        ssize_t w = pf_write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            _exit(70);
        }
        p += w;
        n -= (size_t)w;
    }
}

static void reply(uint32_t op, const void *payload, size_t n) {
    pf_header h;
    h.magic = PF_MAGIC;
    h.op = op;
    h.len = n;
    write_all(REPLY_OUT, &h, sizeof h);
    if (n) write_all(REPLY_OUT, payload, n);
}

static void reply_text(uint32_t op, const char *text) { reply(op, text, strlen(text)); }

static int read_all(int fd, void *data, size_t n) {
    char *p = (char *)data;
    while (n > 0) {
        ssize_t r = pf_read(fd, p, n);
        if (r == 0) return 0;
        if (r < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        p += r;
        n -= (size_t)r;
    }
    return 1;
}

/* ---------------------------------------------------------------- faults */

static const char *fault_name(int i) { return perfalign_names[i]; }

static void on_fault(int sig, siginfo_t *si, void *ctx) {
    char msg[512];
    char *addr = (char *)si->si_addr;
    int i;
    (void)ctx;
    for (i = 0; i < np; i++) {
        if (!region[i]) continue;
        if (addr >= region[i] && addr < region[i] + pagesz) {
            snprintf(msg, sizeof msg, "accessed memory before the start of '%s' (%zu elements)", fault_name(i), counts[i]);
            reply_text(OP_FAULT, msg);
            _exit(4);
        }
        if (addr >= region[i] + region_len[i] - pagesz && addr < region[i] + region_len[i]) {
            snprintf(msg, sizeof msg, "accessed memory past the end of '%s' (%zu elements)", fault_name(i), counts[i]);
            reply_text(OP_FAULT, msg);
            _exit(4);
        }
    }
    if ((size_t)addr < 65536)
        snprintf(msg, sizeof msg, "dereferenced a null pointer");
    else
        snprintf(msg, sizeof msg, "made an invalid memory access (signal %d)", sig);
    reply_text(OP_FAULT, msg);
    _exit(5);
}

static void on_sigsys(int sig, siginfo_t *si, void *ctx) {
    int32_t nr = si->si_syscall;
    (void)sig;
    (void)ctx;
    reply(OP_SYSCALL, &nr, sizeof nr);
    _exit(6);
}

static void install_handlers(void) {
    static char altstack[1 << 16];
    stack_t ss;
    struct sigaction sa;
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    ss.ss_flags = 0;
    sigaltstack(&ss, 0);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, 0);
    sigaction(SIGBUS, &sa, 0);
}

/* ---------------------------------------------------------------- lockdown */

#ifdef __linux__
#if defined(__x86_64__)
#define PF_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PF_ARCH AUDIT_ARCH_AARCH64
#endif
#endif

#ifdef PF_ARCH
#define PF_LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define PF_TRAP_IF(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP)
#define PF_ERRNO_IF(nr, e) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

static void lockdown(int allow_threads) {
    /* Namespaces and a new process are never allowed; a thread (CLONE_THREAD) only within the OpenMP budget. */
#define PF_SPACES (CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | \
                   CLONE_NEWCGROUP)
    /* static: built by the compiler, not copied at run time by a memcpy a side's unit could define */
    static struct sock_filter filter[] = {
        PF_LOAD(arch),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PF_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        PF_LOAD(nr),
        /* clone3 hides its flags in memory a filter cannot read: glibc falls back to clone on ENOSYS. */
        PF_ERRNO_IF(__NR_clone3, ENOSYS),
#ifdef __NR_fork
        PF_TRAP_IF(__NR_fork),
#endif
#ifdef __NR_vfork
        PF_TRAP_IF(__NR_vfork),
#endif
        PF_TRAP_IF(__NR_execve),
        PF_TRAP_IF(__NR_execveat),
        PF_TRAP_IF(__NR_unshare),
        PF_TRAP_IF(__NR_setns),
        PF_TRAP_IF(__NR_ptrace),
        PF_TRAP_IF(__NR_process_vm_readv),
        PF_TRAP_IF(__NR_process_vm_writev),
        PF_TRAP_IF(__NR_mount),
        PF_TRAP_IF(__NR_umount2),
        PF_TRAP_IF(__NR_pivot_root),
        PF_TRAP_IF(__NR_chroot),
        PF_TRAP_IF(__NR_keyctl),
        PF_TRAP_IF(__NR_add_key),
        PF_TRAP_IF(__NR_request_key),
        PF_TRAP_IF(__NR_bpf),
        PF_TRAP_IF(__NR_perf_event_open),
        PF_TRAP_IF(__NR_userfaultfd),
        PF_TRAP_IF(__NR_personality),
        PF_TRAP_IF(__NR_io_uring_setup),
        PF_TRAP_IF(__NR_kexec_load),
        PF_TRAP_IF(__NR_init_module),
        PF_TRAP_IF(__NR_finit_module),
        PF_TRAP_IF(__NR_delete_module),
        PF_ERRNO_IF(__NR_socket, EACCES),
        PF_ERRNO_IF(__NR_socketpair, EACCES),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 6),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PF_SPACES, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 2),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0), /* placeholder: threads allowed? patched below */
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog;
    size_t n = sizeof filter / sizeof filter[0];
    /* The placeholder: with threads allowed it falls through to ALLOW, otherwise it jumps to TRAP. */
    filter[n - 4] = allow_threads ? (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0)
                                  : (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0);
    prog.len = (unsigned short)n;
    prog.filter = filter;
    if (pf_prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
        static const char msg[] = "perfalign worker: cannot install the seccomp filter\n";
        ssize_t r = pf_write(2, msg, sizeof msg - 1);
        (void)r;
        _exit(71);
    }
}
#endif

/* The lockdown's mode, from the environment the kernel handed the process (never through getenv, which a
   side's unit could define): "threads" allows threads, anything else (or nothing) allows none. */
static int pf_threads_allowed(char **envp) {
    static const char key[] = "PF_LOCKDOWN=threads";
    char **e;
    for (e = envp; e && *e; e++) {
        size_t i = 0;
        while (key[i] && (*e)[i] == key[i]) i++;
        if (!key[i] && !(*e)[i]) return 1;
    }
    return 0;
}

#ifdef PF_RAW
#define pf_getpid() pf_sys6(__NR_getpid, 0, 0, 0, 0, 0, 0)
#define pf_fcntl(fd, op, arg) pf_ret(pf_sys6(__NR_fcntl, (fd), (op), (long)(arg), 0, 0, 0))
#define pf_ppoll(fds, n, ts) pf_ret(pf_sys6(__NR_ppoll, (long)(fds), (n), (long)(ts), 0, 8, 0))
#define pf_exit_group(code) pf_sys6(__NR_exit_group, (code), 0, 0, 0, 0, 0)
#else
#define pf_getpid() (long)getpid()
#define pf_fcntl(fd, op, arg) fcntl((fd), (op), (arg))
#define pf_ppoll(fds, n, ts) ppoll((fds), (n), (ts), 0)
#define pf_exit_group(code) _exit(code)
#endif

/* perfalign closed the command channel: it is gone (an editor that killed its server, a kill -9). End at once,
   even in the middle of a call that would never return. The kernel's "die with your parent" cannot do this: the
   parent is bubblewrap, which runs as another user and may not signal this one. */
static void on_sigio(int sig) {
    struct pollfd channel;
    struct timespec now = {0, 0};
    int saved = errno;
    (void)sig;
    channel.fd = CMD_IN;
    channel.events = POLLIN;
    channel.revents = 0;
    if (pf_ppoll(&channel, 1, &now) == 1 && (channel.revents & POLLHUP)) pf_exit_group(75);
    errno = saved;
}

/* Ask for SIGIO when the command channel's writer, perfalign, goes (and when it writes: on_sigio then returns). */
static void pf_end_with_perfalign(void) {
    struct sigaction sa;
    long flags = pf_fcntl(CMD_IN, F_GETFL, 0);
    if (flags < 0) return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigio;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGIO, &sa, 0);
    if (pf_fcntl(CMD_IN, F_SETOWN, pf_getpid()) == 0) pf_fcntl(CMD_IN, F_SETFL, flags | O_ASYNC);
}

__attribute__((constructor(101))) static void pf_lockdown(int argc, char **argv, char **envp) {
#ifdef PF_NO_LOCKDOWN
    (void)argc, (void)argv, (void)envp;  /* sanitizer builds: their runtimes start threads of their own */
#else
    struct sigaction sa;
    (void)argc, (void)argv;
    /* Only raw system calls until the filter is in place: no function a side's unit could define runs first. */
    pf_prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    pf_prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#ifdef PF_ARCH
    lockdown(pf_threads_allowed(envp));
#else
    {
        static const char msg[] = "perfalign worker: no seccomp filter for this architecture\n";
        ssize_t r = pf_write(2, msg, sizeof msg - 1);
        (void)r;
        _exit(72);
    }
#endif
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSYS, &sa, 0);
#endif
}

/* ---------------------------------------------------------------- commands */

static int is_array(int i) { return perfalign_kinds[i] != K_VALUE; }

static void release_buffers(void) {
    int i;
    for (i = 0; i < np; i++) {
        free(exact_buf[i]);
        exact_buf[i] = 0;
        region[i] = 0;
        region_len[i] = 0;
        ptrs[i] = 0;
    }
}

static int map_shared(size_t len) {
    if (shm && shm_len == len) return 1;
    if (shm) pf_munmap(shm, shm_len);
    shm = 0;
    shm_len = 0;
    if (len == 0) return 1;
    shm = (char *)pf_mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED, SHM_FD, 0);
    if (shm == (char *)MAP_FAILED) {
        shm = 0;
        return 0;
    }
    shm_len = len;
    return 1;
}

static void do_hello(void) {
    /* Per parameter: kind, element size, float, signed, hypotheses; then, for the return value and each
       parameter, its record's leaf fields (count; offset, size, float, signed each) when their types differ. */
    static int32_t out[6 + 5 * PF_MAXP + (PF_MAXP + 1) * (1 + 4 * PF_MAXF)];
    int i, f, k = 0;
    out[k++] = np;
    out[k++] = perfalign_ret_kind;
    out[k++] = perfalign_ret_esize();
    out[k++] = perfalign_ret_float();
    out[k++] = perfalign_ret_signed();
    out[k++] = (int32_t)pagesz;
    for (i = 0; i < np; i++) {
        out[k++] = perfalign_kinds[i];
        out[k++] = is_array(i) ? (int32_t)perfalign_esize(i) : 0;
        out[k++] = is_array(i) ? perfalign_elem_float(i) : 0;
        out[k++] = is_array(i) ? perfalign_elem_signed(i) : 0;
        out[k++] = is_array(i) ? perfalign_nhyp(i) : 0;
    }
    for (i = -1; i < np; i++) {
        int nf = perfalign_nfields(i);
        if (nf < 0 || nf > PF_MAXF) nf = 0;
        out[k++] = nf;
        for (f = 0; f < nf; f++) {
            out[k++] = (int32_t)perfalign_field(i, f, 0);
            out[k++] = (int32_t)perfalign_field(i, f, 1);
            out[k++] = (int32_t)perfalign_field(i, f, 2);
            out[k++] = (int32_t)perfalign_field(i, f, 3);
        }
    }
    reply(OP_HELLO, out, (size_t)k * sizeof(int32_t));
}

static void do_counts(const unsigned char *p) {
    uint64_t out[PF_MAXP];
    const int32_t *hyp;
    int i;
    memcpy(lens, p, sizeof(long long) * (size_t)(np + 1));
    hyp = (const int32_t *)(p + sizeof(long long) * (size_t)(np + 1));
    for (i = 0; i < np; i++) out[i] = is_array(i) ? (uint64_t)perfalign_count(i, hyp[i], lens) : 0;
    reply(OP_COUNTS, out, sizeof(uint64_t) * (size_t)np);
}

/* Kept inputs: a case set up again (the same check case at the next thread count, or repeated to find a race)
   gets the inputs it had, copied, instead of drawing them again (sorting and pow() are the costly part of a
   large case). Kept are the SETUP payload that drew them (its KEEP word cleared), each array's bytes, and the
   scalars. The copy is read-only except while a setup writes it (the function may read its own inputs anyway). */
#define KEEP_MAX ((size_t)256 << 20)
static unsigned char *kept;
static size_t kept_cap, kept_len, kept_key;  /* mapped, used, and of that the payload's bytes; kept_len 0: none */

static int kept_matches(const unsigned char *key, size_t n) {
    return kept_len && n == kept_key && memcmp(kept, key, n) == 0;
}

/* Copy the kept arrays and scalars into this case's buffers (same layout: the payloads are the same). */
static void restore_kept(const int32_t *alias_of) {
    size_t at = kept_key;
    int i;
    for (i = 0; i < np; i++) {
        size_t bytes = is_array(i) ? counts[i] * perfalign_esize(i) : 0;
        if (bytes && alias_of[i] < 0) memcpy(ptrs[i], kept + at, bytes);
        if (alias_of[i] < 0) at += bytes;
    }
    memcpy(ints, kept + at, sizeof(long long) * (size_t)np);
    memcpy(reals, kept + at + sizeof(long long) * (size_t)np, sizeof(double) * (size_t)np);
}

/* Keep this case's inputs (as drawn, before the function's glue sees them) for its next setup; none when they are
   larger than KEEP_MAX or the memory cannot be had. */
static void keep_inputs(const unsigned char *key, size_t n, const int32_t *alias_of) {
    size_t need = n + 2 * sizeof(long long) * (size_t)np, at = n;
    int i;
    kept_len = 0;
    for (i = 0; i < np; i++)
        if (is_array(i) && alias_of[i] < 0) need += counts[i] * perfalign_esize(i);
    if (need > KEEP_MAX) return;
    if (need > kept_cap) {
        size_t cap = (need + pagesz - 1) / pagesz * pagesz;
        void *m;
        if (kept) pf_munmap(kept, kept_cap);
        kept = 0;
        kept_cap = 0;
        m = pf_mmap(0, cap, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return;
        kept = (unsigned char *)m;
        kept_cap = cap;
    }
    pf_mprotect(kept, kept_cap, PROT_READ | PROT_WRITE);
    memcpy(kept, key, n);
    for (i = 0; i < np; i++) {
        size_t bytes = is_array(i) ? counts[i] * perfalign_esize(i) : 0;
        if (bytes && alias_of[i] < 0) memcpy(kept + at, ptrs[i], bytes);
        if (alias_of[i] < 0) at += bytes;
    }
    memcpy(kept + at, ints, sizeof(long long) * (size_t)np);
    memcpy(kept + at + sizeof(long long) * (size_t)np, reals, sizeof(double) * (size_t)np);
    pf_mprotect(kept, kept_cap, PROT_READ);
    kept_key = n;
    kept_len = need;
}

/* SETUP payload: u64 seed, i32 array_profile, i32 scalar_profile, i32 alloc, i32 keep, u64 shm_size,
   i64 lens[np+1], u64 counts[np], u64 offsets[np], i32 at_end[np], i32 alias_of[np]. With keep, the case will be
   set up again: its inputs are kept (above). */
static void do_setup(const unsigned char *p, size_t n) {
    unsigned long long seed, rng;
    int32_t array_profile, scalar_profile, alloc, keep;
    unsigned char key[4096];
    int again;
    uint64_t shm_size;
    const uint64_t *cnt, *off;
    const int32_t *at_end, *alias_of;
    uint64_t where[4 * PF_MAXP];
    int i;
    memcpy(&seed, p, 8);
    memcpy(&array_profile, p + 8, 4);
    memcpy(&scalar_profile, p + 12, 4);
    memcpy(&alloc, p + 16, 4);
    memcpy(&keep, p + 20, 4);
    memcpy(&shm_size, p + 24, 8);
    /* The payload without its KEEP word: what drew the inputs (too long a payload is simply never kept). */
    again = 0;
    if (n <= sizeof key) {
        memcpy(key, p, n);
        memset(key + 20, 0, 4);
        again = kept_matches(key, n);
    } else {
        keep = 0;
    }
    p += 32;
    memcpy(lens, p, sizeof(long long) * (size_t)(np + 1));
    p += sizeof(long long) * (size_t)(np + 1);
    cnt = (const uint64_t *)p;
    p += sizeof(uint64_t) * (size_t)np;
    off = (const uint64_t *)p;
    p += sizeof(uint64_t) * (size_t)np;
    at_end = (const int32_t *)p;
    p += sizeof(int32_t) * (size_t)np;
    alias_of = (const int32_t *)p;
    release_buffers();
    if (alloc == ALLOC_SHARED && !map_shared((size_t)shm_size)) {
        reply_text(OP_FAIL, "cannot map the shared memory for the inputs");
        return;
    }
    /* The file keeps the largest size a case has needed, so it is not unmapped and faulted in again between
       cases: first every page is made usable (an earlier case's guard pages may lie anywhere), then the guards
       of this case are set, and what lies beyond its layout is closed until the results are dumped. */
    if (alloc == ALLOC_SHARED && shm_len) pf_mprotect(shm, shm_len, PROT_READ | PROT_WRITE);
    for (i = 0; i < np; i++) {
        size_t bytes;
        counts[i] = (size_t)cnt[i];
        if (!is_array(i)) continue;
        bytes = counts[i] * perfalign_esize(i);
        if (alias_of[i] >= 0) continue;
        if (alloc == ALLOC_EXACT) {
            exact_buf[i] = malloc(bytes ? bytes : 1);
            if (!exact_buf[i]) {
                char msg[128];
                snprintf(msg, sizeof msg, "cannot allocate %zu bytes for the inputs", bytes);
                reply_text(OP_FAIL, msg);
                return;
            }
            ptrs[i] = exact_buf[i];
        } else {
            size_t body = (bytes + pagesz - 1) / pagesz * pagesz;
            if (body == 0) body = pagesz;
            if (off[i] + body + 2 * pagesz > shm_len) {
                reply_text(OP_FAIL, "the shared memory is smaller than the inputs");
                return;
            }
            region[i] = shm + off[i];
            region_len[i] = body + 2 * pagesz;
            pf_mprotect(region[i], pagesz, PROT_NONE);
            pf_mprotect(region[i] + pagesz, body, PROT_READ | PROT_WRITE);
            pf_mprotect(region[i] + pagesz + body, pagesz, PROT_NONE);
            ptrs[i] = region[i] + pagesz + (at_end[i] ? body - bytes : 0);
        }
    }
    if (alloc == ALLOC_SHARED) {
        size_t used = 0; /* the layout's size: the end of its last region, then one page */
        for (i = 0; i < np; i++) {
            size_t end = region[i] ? (size_t)(region[i] - shm) + region_len[i] : 0;
            if (end > used) used = end;
        }
        used += pagesz;
        if (used < shm_len) pf_mprotect(shm + used, shm_len - used, PROT_NONE);
    }
    for (i = 0; i < np; i++)
        if (is_array(i) && alias_of[i] >= 0) ptrs[i] = ptrs[alias_of[i]];
    if (again) {
        restore_kept(alias_of);
    } else {
        rng = seed * 0x2545F4914F6CDD1DULL + 7;
        for (i = 0; i < np; i++) {
            if (is_array(i)) {
                if (alias_of[i] < 0) perfalign_fill(i, ptrs[i], counts[i], &rng, lens, array_profile);
                ints[i] = 0;
                reals[i] = 0;
            } else {
                ints[i] = perfalign_int_value(i, lens, &rng, scalar_profile);
                reals[i] = perfalign_real_value(i, lens, &rng, scalar_profile);
            }
        }
        if (keep) keep_inputs(key, n, alias_of);
        else kept_len = 0;
    }
    perfalign_setup_w(ptrs, counts, ints, reals);
    for (i = 0; i < np; i++) {
        where[2 * i] = (uint64_t)(uintptr_t)ptrs[i];
        where[2 * i + 1] = (uint64_t)(uintptr_t)ptrs[i] + (is_array(i) ? counts[i] * perfalign_esize(i) : 0);
        /* the scalars drawn for this case, after the ranges: a failing call can be written out in full */
        memcpy(&where[2 * np + i], &ints[i], 8);
        memcpy(&where[3 * np + i], &reals[i], 8);
    }
    reply(OP_OK, where, sizeof(uint64_t) * 4 * (size_t)np);
}

/* DUMP payload: u64 offset, u64 shm_size. Copies what lives outside the shared buffers (std::vector
   contents, a T& output, the return value) into the shared memory from offset on. */
static void do_dump(const unsigned char *p) {
    uint64_t offset, shm_size, cursor, need = 0;
    int64_t out[2 * PF_MAXP + 3];
    unsigned char raw[32];
    uint32_t ret_size;
    unsigned char msg[sizeof out + 4 + sizeof raw];
    int i, k = 0;
    memcpy(&offset, p, 8);
    memcpy(&shm_size, p + 8, 8);
    if (!map_shared((size_t)shm_size)) {
        reply_text(OP_FAIL, "cannot map the shared memory for the results");
        return;
    }
    if (offset < shm_len) pf_mprotect(shm + offset, shm_len - offset, PROT_READ | PROT_WRITE); /* closed by SETUP */
    cursor = offset;
    for (i = 0; i <= np; i++) {
        int index = i < np ? i : -1;
        void *data = 0;
        size_t count = (size_t)-1;
        if (i < np && !is_array(i)) {
            out[k++] = -1;
            out[k++] = 0;
            continue;
        }
        if (i == np && perfalign_ret_kind != 4) break;
        perfalign_view_w(index, &data, &count);
        if (count == (size_t)-1) {
            out[k++] = -1;
            out[k++] = 0;
            continue;
        }
        {
            size_t esize = index >= 0 ? perfalign_esize(index) : (size_t)perfalign_ret_esize();
            size_t bytes = count * esize;
            cursor = (cursor + 63) / 64 * 64;
            if (cursor + bytes > shm_len) {
                need = cursor + bytes;
                cursor += bytes;
                out[k++] = (int64_t)count;
                out[k++] = 0;
                continue;
            }
            if (bytes) memcpy(shm + cursor, data, bytes);
            out[k++] = (int64_t)count;
            out[k++] = (int64_t)cursor;
            cursor += bytes;
        }
    }
    if (need) {
        uint64_t total = cursor + 64;
        reply(OP_NEED, &total, sizeof total);
        return;
    }
    if (perfalign_ret_kind != 4) {
        out[k++] = -1;
        out[k++] = 0;
    }
    memset(raw, 0, sizeof raw);
    ret_size = (uint32_t)perfalign_ret_raw_w(raw);
    memcpy(msg, out, sizeof(int64_t) * (size_t)k);
    memcpy(msg + sizeof(int64_t) * (size_t)k, &ret_size, 4);
    memcpy(msg + sizeof(int64_t) * (size_t)k + 4, raw, sizeof raw);
    reply(OP_OK, msg, sizeof(int64_t) * (size_t)k + 4 + sizeof raw);
}

int main(void) {
    pf_header h;
    np = perfalign_nparams;
    pagesz = (size_t)sysconf(_SC_PAGESIZE);
    if (fcntl(REPLY_OUT, F_GETFD) == -1) {
        /* Run from a recorded list of commands (the race check): nobody reads the replies. */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0 && null != REPLY_OUT) dup2(null, REPLY_OUT);
    }
    install_handlers();
    pf_end_with_perfalign();
    setvbuf(stdout, 0, _IOFBF, 1 << 16);
    for (;;) {
        if (!read_all(CMD_IN, &h, sizeof h) || h.magic != PF_MAGIC) return 0;
        if (h.len > cmd_cap) {
            free(cmd);
            cmd_cap = (size_t)h.len;
            cmd = (unsigned char *)malloc(cmd_cap);
            if (!cmd) return 3;
        }
        if (h.len && !read_all(CMD_IN, cmd, (size_t)h.len)) return 0;
        switch (h.op) {
        case OP_HELLO: do_hello(); break;
        case OP_COUNTS: do_counts(cmd); break;
        case OP_SETUP: do_setup(cmd, (size_t)h.len); break;
        case OP_CALL:
            /* perfalign times the call to the kernel's stamp on this reply: nothing measured here is believed. */
            perfalign_call_w();
            reply(OP_DONE, 0, 0);
            break;
        case OP_DUMP: do_dump(cmd); break;
        case OP_THREADS: {
            int32_t t;
            memcpy(&t, cmd, 4);
#ifdef _OPENMP
            omp_set_num_threads(t);
#endif
            (void)t;
            reply(OP_OK, 0, 0);
            break;
        }
        case OP_QUIT: fflush(stdout); return 0;
        default: reply_text(OP_FAIL, "unknown command"); break;
        }
    }
}
