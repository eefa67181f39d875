// The kernel's process events, for ProcessEvents (Swift). Plain C types only: the kernel's own
// structures stay in process_events.c.
#ifndef SCREENTIME_PROCESS_EVENTS_H
#define SCREENTIME_PROCESS_EVENTS_H

// What screentime_process_events_next read.
#define SCREENTIME_KERNEL_ANSWER 0
#define SCREENTIME_PROCESS_EXECD 1
#define SCREENTIME_PROCESS_ENDED 2

// Opens a non-blocking socket with a receive buffer of about `buffer` bytes and asks the kernel for
// its process events; `nonce` marks the request, so that the kernel's answer to this socket can be
// told from its answers to other listeners. A socket filter lets through only execs, ends of whole
// processes (a thread's end is no news) and answers: other events cost no copy.
// Returns the descriptor, or -1 with errno set (EPERM: this kernel lets only root listen, before 6.6).
int screentime_process_events_open(int buffer, unsigned nonce);

// Reads one message. Returns 1 with *kind and *value set: for an exec or end, *value is the
// process id; for an answer (to anyone's request: the kernel sends each to every listener), *value
// is the error the kernel answered with (0: done) and *request the nonce the request carried.
// Returns 0 when no message waits; -1 with errno set (ENOBUFS: the buffer ran over and events were
// lost). Messages not from the kernel and anything unexpected are passed over.
int screentime_process_events_next(int fd, int *kind, int *value, unsigned *request);

// Asks the kernel again to send this socket its events, marked with `nonce`. The socket already
// listens, so the kernel's count of listeners stays as it is (from Linux 6.6); it answers only
// while that count is above zero, so the answer is the proof that it still sends events.
int screentime_process_events_ask_again(int fd, unsigned nonce);

// Tells the kernel this socket no longer listens, and closes it.
void screentime_process_events_close(int fd, unsigned nonce);

#endif
