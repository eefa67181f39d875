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

// Reads one message. Returns 1 with *kind and *pid set (for an answer, *pid is the error the kernel
// answered with: 0 when listening); 0 when no message waits; -1 with errno set (ENOBUFS: the
// buffer ran over and events were lost). Messages not from the kernel, other listeners' answers and
// anything unexpected are passed over.
int screentime_process_events_next(int fd, unsigned nonce, int *kind, int *pid);

// Tells the kernel this socket no longer listens, and closes it.
void screentime_process_events_close(int fd, unsigned nonce);

#endif
