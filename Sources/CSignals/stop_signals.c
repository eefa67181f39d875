#include "stop_signals.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t arrived[3];
static volatile int wake = -1;

static int slot(int signo) {
    switch (signo) {
    case SIGTERM: return 0;
    case SIGINT: return 1;
    case SIGHUP: return 2;
    default: return -1;
    }
}

static void on_signal(int signo) {
    int saved = errno;
    int s = slot(signo);
    if (s >= 0) __atomic_store_n(&arrived[s], 1, __ATOMIC_SEQ_CST);
    if (wake >= 0) {
        unsigned char one = 1;
        (void)!write(wake, &one, 1);   // a full pipe already wakes the loop
    }
    errno = saved;
}

int screentime_stop_signals_install(int wake_fd) {
    wake = wake_fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    int signals[] = { SIGTERM, SIGINT, SIGHUP };
    sigset_t these;
    sigemptyset(&these);
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
        sigaddset(&these, signals[i]);
    }
    // A program started from a thread that blocks signals (a libdispatch worker's, as a test's
    // Foundation.Process may be) inherits that mask: these must reach the handler all the same.
    errno = pthread_sigmask(SIG_UNBLOCK, &these, NULL);
    return errno == 0 ? 0 : -1;
}

int screentime_stop_signals_take(int signo) {
    int s = slot(signo);
    if (s < 0) return 0;
    return __atomic_exchange_n(&arrived[s], 0, __ATOMIC_SEQ_CST) != 0;
}
