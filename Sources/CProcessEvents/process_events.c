// The kernel's process events (the proc connector, "cn_proc"): a netlink socket on which the
// kernel tells, as it happens, of every exec and exit in the system. ProcessEvents (Swift) is the
// one user of these functions. They are C of their own, not in CShims' header, so that the kernel's
// headers, which Swift's Glibc module does not expect, stay out of Swift's sight.
#include "process_events.h"

#include <errno.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

// The offsets of proc_event's fields in a message as the socket filter sees it (from the netlink header).
#define SCREENTIME_CN_EVENT (NLMSG_HDRLEN + sizeof(struct cn_msg))
#define SCREENTIME_CN_WHAT (SCREENTIME_CN_EVENT + offsetof(struct proc_event, what))
#define SCREENTIME_CN_PID (SCREENTIME_CN_EVENT + offsetof(struct proc_event, event_data.exit.process_pid))
#define SCREENTIME_CN_TGID (SCREENTIME_CN_EVENT + offsetof(struct proc_event, event_data.exit.process_tgid))

static int send_request(int fd, unsigned nonce, enum proc_cn_mcast_op op) {
    struct {
        struct nlmsghdr header;
        struct cn_msg message;
        enum proc_cn_mcast_op op;
    } __attribute__((packed)) request;
    memset(&request, 0, sizeof request);
    request.header.nlmsg_len = sizeof request;
    request.header.nlmsg_type = NLMSG_DONE;
    request.message.id.idx = CN_IDX_PROC;
    request.message.id.val = CN_VAL_PROC;
    request.message.seq = nonce;
    request.message.ack = nonce;
    request.message.len = sizeof(enum proc_cn_mcast_op);
    request.op = op;
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK, .nl_pid = 0, .nl_groups = 0 };
    return sendto(fd, &request, sizeof request, 0, (struct sockaddr *)&kernel, sizeof kernel) == (ssize_t)sizeof request ? 0 : -1;
}

// See process_events.h.
int screentime_process_events_open(int buffer, unsigned nonce) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
    if (fd < 0) return -1;
    // Beyond net.core.rmem_max only for root; else as much as that allows.
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buffer, sizeof buffer) < 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
    // Loads are big-endian in classic BPF, the kernel's fields host-endian: constants are compared
    // byte-swapped, and pid == tgid holds in either order.
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SCREENTIME_CN_WHAT),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_EXEC), 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_NONE), 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_EXIT), 1, 0),
        BPF_STMT(BPF_RET | BPF_K, 0),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SCREENTIME_CN_PID),
        BPF_STMT(BPF_ST, 0),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SCREENTIME_CN_TGID),
        BPF_STMT(BPF_LDX | BPF_W | BPF_MEM, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
        BPF_STMT(BPF_RET | BPF_K, 0),
    };
    struct sock_fprog program = { .len = sizeof code / sizeof code[0], .filter = code };
    struct sockaddr_nl group = { .nl_family = AF_NETLINK, .nl_pid = 0, .nl_groups = CN_IDX_PROC };
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program) < 0
        || bind(fd, (struct sockaddr *)&group, sizeof group) < 0
        || send_request(fd, nonce, PROC_CN_MCAST_LISTEN) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

// See process_events.h.
int screentime_process_events_next(int fd, int *kind, int *value, unsigned *request) {
    for (;;) {
        union {
            struct nlmsghdr header;
            char bytes[1024];
        } message;
        struct sockaddr_nl from;
        socklen_t size = sizeof from;
        ssize_t got = recvfrom(fd, &message, sizeof message, 0, (struct sockaddr *)&from, &size);
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            if (errno == EINTR) continue;
            return -1;
        }
        if (from.nl_pid != 0) continue;
        if ((size_t)got < SCREENTIME_CN_EVENT + offsetof(struct proc_event, event_data) + 2 * sizeof(__kernel_pid_t)) continue;
        if (!NLMSG_OK(&message.header, (unsigned)got)) continue;
        const struct cn_msg *cn = (const struct cn_msg *)NLMSG_DATA(&message.header);
        if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC) continue;
        const struct proc_event *event = (const struct proc_event *)cn->data;
        switch (event->what) {
        case PROC_EVENT_NONE:
            // The kernel answers a request, anyone's, to every listener, with the request's ack plus one.
            *kind = SCREENTIME_KERNEL_ANSWER;
            *value = (int)event->event_data.ack.err;
            *request = cn->ack - 1;
            return 1;
        case PROC_EVENT_EXEC:
            *kind = SCREENTIME_PROCESS_EXECD;
            *value = event->event_data.exec.process_tgid;
            return 1;
        case PROC_EVENT_EXIT:
            if (event->event_data.exit.process_pid != event->event_data.exit.process_tgid) continue;
            *kind = SCREENTIME_PROCESS_ENDED;
            *value = event->event_data.exit.process_tgid;
            return 1;
        default:
            continue;
        }
    }
}

// See process_events.h.
int screentime_process_events_ask_again(int fd, unsigned nonce) {
    return send_request(fd, nonce, PROC_CN_MCAST_LISTEN);
}

// See process_events.h.
void screentime_process_events_close(int fd, unsigned nonce) {
    (void)send_request(fd, nonce, PROC_CN_MCAST_IGNORE);
    close(fd);
}
