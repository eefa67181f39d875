// System calls glibc 2.36 declares in <sys/pidfd.h> but Swift cannot reach through Glibc: a pidfd
// names one process for good, so a signal cannot reach another that reused its pid.
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

// Returns a descriptor, or -1 with errno set (ESRCH: no such process).
static inline int screentime_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

// Returns 0, or -1 with errno set (ESRCH: the process has exited).
static inline int screentime_pidfd_send_signal(int pidfd, int sig) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

#include <time.h>

// The kernel's own answer for a clock, through the system call rather than glibc's clock_gettime
// (the vDSO), which an LD_PRELOAD such as libfaketime replaces. Returns 0, or -1 with errno set.
static inline int screentime_kernel_clock_gettime(clockid_t clock, struct timespec *ts) {
    return (int)syscall(SYS_clock_gettime, clock, ts);
}
