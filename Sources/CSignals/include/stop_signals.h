#ifndef SCREENTIME_STOP_SIGNALS_H
#define SCREENTIME_STOP_SIGNALS_H

// SIGTERM, SIGINT and SIGHUP for a program whose run loop polls: the handler only notes the signal
// and writes one byte to the loop's wakeup pipe, both safe in a signal handler; the loop takes
// the notes on its next turn. (libdispatch's signal sources did the same through a manager thread,
// and handled the signal on a worker thread: libdispatch then woke every second, for the rest of
// the process's life, to watch its workers.)

// Installs the handler for the three signals; `wake_fd` is written one byte at each. Returns 0,
// or -1 with errno set.
int screentime_stop_signals_install(int wake_fd);

// Whether `signo` (SIGTERM, SIGINT or SIGHUP) arrived since the last call that asked for it.
int screentime_stop_signals_take(int signo);

#endif
