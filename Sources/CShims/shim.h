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

// glibc declares these only under _GNU_SOURCE, which Swift's Glibc module does not set. Its
// wrappers (not the raw system calls) change the credentials of every thread of the process.
extern int setresuid(uid_t ruid, uid_t euid, uid_t suid);
extern int setresgid(gid_t rgid, gid_t egid, gid_t sgid);
static inline int screentime_setresuid(uid_t r, uid_t e, uid_t s) { return setresuid(r, e, s); }
static inline int screentime_setresgid(gid_t r, gid_t e, gid_t s) { return setresgid(r, e, s); }

#include <malloc.h>
#include <dlfcn.h>

// glibc's allocator gives its free memory back to the system (ResidentMemory); Glibc's Swift
// module leaves <malloc.h> out. Returns 1 when memory was released. In a program built with a
// sanitizer (the test suites' sanitizer runs) memory comes from the sanitizer's allocator, not
// glibc's, and trimming glibc's unused arena crashed under the thread sanitizer: nothing is done.
static inline int screentime_malloc_trim(void) {
    if (dlsym(RTLD_DEFAULT, "__tsan_init") || dlsym(RTLD_DEFAULT, "__asan_init")) return 0;
    return malloc_trim(0);
}
