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
// That is asked once: a name looked up that no object has reads every object's symbol table,
// the program's 100,000 names among them, whose pages then stay mapped (docs/benchmarks.md).
static inline int screentime_malloc_trim(void) {
    static int sanitized = -1;
    if (sanitized < 0) sanitized = dlsym(RTLD_DEFAULT, "__tsan_init") || dlsym(RTLD_DEFAULT, "__asan_init");
    return sanitized ? 0 : malloc_trim(0);
}

#include <sqlite3.h>

// SQLite gives each connection's page cache, at its first read, one allocation for 20 pages
// (86 KiB) that releasing memory never frees; a daemon with a state per child held 174 KiB of
// its heap that way (docs/benchmarks.md). Without it each page is allocated when read and freed
// with the cache. Must come before SQLite is first used (SQLITE_MISUSE after, and then nothing
// changes); returns SQLite's answer.
static inline int screentime_sqlite_page_cache_without_bulk(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
