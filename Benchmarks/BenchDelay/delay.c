// bench-delay QUEUE MILLISECONDS: a delay line for Bench's network lab. It takes the packets
// iptables sends to NFQUEUE number QUEUE, holds each for MILLISECONDS and then lets it go on.
//
// Why this exists: the lab's kernel has no netem, and a constant delay is all a link's RTT needs.
// Why no libnetfilter_queue: the package links no library beyond OpenSSL, and machines that run
// Bench need not have it. nfnetlink_queue over a raw netlink socket is four message shapes:
// bind the queue, set its parameters, read packets, send a verdict.
//
// The delay is constant, so packets leave in arrival order: one NFQNL_MSG_VERDICT_BATCH accepts
// every packet whose id is up to the newest one due (ids grow by one per queued packet). That
// also covers a packet whose notification the socket dropped (ENOBUFS): it is accepted with the
// next batch. Copy mode META: the verdict needs only the id, never the payload.
//
// It runs until SIGTERM or SIGINT; packets still held then are dropped by the kernel with the
// queue, as a link that goes down drops what is on the wire.
// glibc's <netinet/in.h> (through arpa/inet.h) first: the kernel headers then skip their copies.
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HELD (1 << 17)  // more than the queue's maximum length: the ring never overflows
#define QUEUE_MAXLEN 65536

static volatile sig_atomic_t stopping = 0;
static void on_signal(int signal) { (void)signal; stopping = 1; }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// The packets held, oldest first: their ids and when each is due.
static uint32_t held_id[HELD];
static double held_due[HELD];
static unsigned head = 0, tail = 0;

static void attribute(char *buffer, struct nlmsghdr *message, uint16_t type, const void *data, uint16_t length) {
    struct nlattr *attr = (struct nlattr *)(buffer + NLMSG_ALIGN(message->nlmsg_len));
    attr->nla_type = type;
    attr->nla_len = NLA_HDRLEN + length;
    memcpy((char *)attr + NLA_HDRLEN, data, length);
    message->nlmsg_len = NLMSG_ALIGN(message->nlmsg_len) + NLA_ALIGN(attr->nla_len);
}

static struct nlmsghdr *start(char *buffer, uint16_t type, uint16_t flags, uint16_t queue) {
    memset(buffer, 0, 256);
    struct nlmsghdr *message = (struct nlmsghdr *)buffer;
    message->nlmsg_len = NLMSG_LENGTH(sizeof(struct nfgenmsg));
    message->nlmsg_type = (NFNL_SUBSYS_QUEUE << 8) | type;
    message->nlmsg_flags = NLM_F_REQUEST | flags;
    struct nfgenmsg *header = NLMSG_DATA(message);
    header->nfgen_family = AF_UNSPEC;
    header->version = NFNETLINK_V0;
    header->res_id = htons(queue);
    return message;
}

static int send_message(int fd, struct nlmsghdr *message) {
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    return sendto(fd, message, message->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0 ? -1 : 0;
}

// Sends a configuration message and waits for the kernel's acknowledgement (0 or -errno).
static int configure(int fd, struct nlmsghdr *message) {
    if (send_message(fd, message) < 0) return -errno;
    char reply[8192];
    for (;;) {
        ssize_t n = recv(fd, reply, sizeof reply, 0);
        if (n < 0) return errno == EINTR ? 0 : -errno;
        for (struct nlmsghdr *m = (struct nlmsghdr *)reply; NLMSG_OK(m, (size_t)n); m = NLMSG_NEXT(m, n)) {
            if (m->nlmsg_type == NLMSG_ERROR) return ((struct nlmsgerr *)NLMSG_DATA(m))->error;
        }
    }
}

static int accept_through(int fd, uint16_t queue, uint32_t id) {
    char buffer[256];
    struct nlmsghdr *message = start(buffer, NFQNL_MSG_VERDICT_BATCH, 0, queue);
    struct nfqnl_msg_verdict_hdr verdict = {.verdict = htonl(NF_ACCEPT), .id = htonl(id)};
    attribute(buffer, message, NFQA_VERDICT_HDR, &verdict, sizeof verdict);
    return send_message(fd, message);
}

// Records every packet in a buffer of notifications.
static void take(char *buffer, ssize_t n, double due) {
    for (struct nlmsghdr *m = (struct nlmsghdr *)buffer; NLMSG_OK(m, (size_t)n); m = NLMSG_NEXT(m, n)) {
        if (m->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET)) continue;
        int left = (int)m->nlmsg_len - NLMSG_LENGTH(sizeof(struct nfgenmsg));
        struct nlattr *attr = (struct nlattr *)((char *)NLMSG_DATA(m) + NLMSG_ALIGN(sizeof(struct nfgenmsg)));
        for (; left >= NLA_HDRLEN && attr->nla_len >= NLA_HDRLEN && attr->nla_len <= left;
             left -= NLA_ALIGN(attr->nla_len), attr = (struct nlattr *)((char *)attr + NLA_ALIGN(attr->nla_len))) {
            if ((attr->nla_type & NLA_TYPE_MASK) != NFQA_PACKET_HDR) continue;
            struct nfqnl_msg_packet_hdr *packet = (struct nfqnl_msg_packet_hdr *)((char *)attr + NLA_HDRLEN);
            held_id[tail % HELD] = ntohl(packet->packet_id);
            held_due[tail % HELD] = due;
            tail++;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench-delay QUEUE MILLISECONDS\n");
        return 64;
    }
    uint16_t queue = (uint16_t)atoi(argv[1]);
    double delay = atof(argv[2]) / 1000;
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER);
    if (fd < 0) { perror("bench-delay: netlink socket"); return 69; }
    // Room for a whole queue of notifications; FORCE goes past rmem_max (we are root).
    int size = 64 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    int one = 1;
    setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof one);
    struct sockaddr_nl local = {.nl_family = AF_NETLINK};
    if (bind(fd, (struct sockaddr *)&local, sizeof local) < 0) { perror("bench-delay: bind"); return 69; }

    char buffer[256];
    struct nlmsghdr *message = start(buffer, NFQNL_MSG_CONFIG, NLM_F_ACK, queue);
    struct nfqnl_msg_config_cmd bind_command = {.command = NFQNL_CFG_CMD_BIND, .pf = htons(AF_INET)};
    attribute(buffer, message, NFQA_CFG_CMD, &bind_command, sizeof bind_command);
    int error = configure(fd, message);
    if (error != 0) { fprintf(stderr, "bench-delay: bind queue %u: %s\n", queue, strerror(-error)); return 69; }
    message = start(buffer, NFQNL_MSG_CONFIG, NLM_F_ACK, queue);
    struct nfqnl_msg_config_params parameters = {.copy_range = htonl(0), .copy_mode = NFQNL_COPY_META};
    attribute(buffer, message, NFQA_CFG_PARAMS, &parameters, sizeof parameters);
    uint32_t maxlen = htonl(QUEUE_MAXLEN);
    attribute(buffer, message, NFQA_CFG_QUEUE_MAXLEN, &maxlen, sizeof maxlen);
    error = configure(fd, message);
    if (error != 0) { fprintf(stderr, "bench-delay: configure queue %u: %s\n", queue, strerror(-error)); return 69; }
    printf("ready\n");
    fflush(stdout);

    static char packets[1 << 20];
    while (!stopping) {
        int timeout = -1;
        if (head != tail) {
            double wait = held_due[head % HELD] - now();
            timeout = wait <= 0 ? 0 : (int)(wait * 1000) + 1;
        }
        struct pollfd waiting = {.fd = fd, .events = POLLIN};
        int ready = poll(&waiting, 1, timeout);
        if (ready > 0) {
            // Everything already there, without blocking: one due time per read.
            for (;;) {
                ssize_t n = recv(fd, packets, sizeof packets, MSG_DONTWAIT);
                if (n <= 0) break;
                take(packets, n, now() + delay);
            }
        }
        double moment = now();
        uint32_t last = 0;
        int due = 0;
        while (head != tail && held_due[head % HELD] <= moment) {
            last = held_id[head % HELD];
            head++;
            due = 1;
        }
        if (due && accept_through(fd, queue, last) < 0 && errno != ENOBUFS && errno != EINTR) {
            perror("bench-delay: verdict");
            return 70;
        }
    }
    return 0;
}
