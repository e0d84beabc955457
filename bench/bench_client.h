// What the C load clients of bench/ share (realtime_load.c, pocketbase-listen.c): loopback connections, sending a
// request whole, opening many event streams on one epoll loop, and the latency line they both print. Header-only
// (every function static), so each client still builds with one `cc -O2 -pthread bench/NAME.c`.
//
// A client sets `bench_name` (for error messages) before it calls anything here.
#ifndef KURA_BENCH_CLIENT_H
#define KURA_BENCH_CLIENT_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *bench_name = "bench";
// The epoll instance the streams are registered with (`bench_open_streams`), each with its index as data.
static int bench_epoll_fd = -1;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void die(const char *what) {
    fprintf(stderr, "%s: %s: %s\n", bench_name, what, strerror(errno));
    exit(1);
}

// A TCP connection to 127.0.0.1:`port` (TCP_NODELAY); a non-blocking one may still be connecting.
static int connect_to_port(int port, int blocking) {
    int fd = socket(AF_INET, SOCK_STREAM | (blocking ? 0 : SOCK_NONBLOCK), 0);
    if (fd < 0) die("socket");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = inet_addr("127.0.0.1");
    if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0 && errno != EINPROGRESS) die("connect");
    return fd;
}

static void send_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t n = send(fd, bytes, length, MSG_NOSIGNAL);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) die("send");
        bytes += n;
        length -= n;
    }
}

// Opens `count` streams: connection i to `port_of(i)`, `request_of(i, &length)` sent on it once it is connected,
// then `opened(i, fd)`; at most 256 connects in flight, so the server's accept backlog is never overrun. Bytes that
// arrive meanwhile go to `readable(i)`. The streams stay registered with `bench_epoll_fd` for `bench_pump`.
static void bench_open_streams_each(int count, int (*port_of)(int), const char *(*request_of)(int, size_t *),
                                    void (*opened)(int, int), void (*readable)(int)) {
    char *sent = calloc(count, 1);
    int *fds = calloc(count, sizeof *fds);
    bench_epoll_fd = epoll_create1(0);
    int started = 0, pending = 0;
    struct epoll_event ready[1024];
    while (started < count || pending > 0) {
        while (started < count && pending < 256) {
            fds[started] = connect_to_port(port_of(started), 0);
            struct epoll_event event = {.events = EPOLLOUT | EPOLLIN, .data.u32 = started};
            epoll_ctl(bench_epoll_fd, EPOLL_CTL_ADD, fds[started], &event);
            started++;
            pending++;
        }
        int n = epoll_wait(bench_epoll_fd, ready, 1024, 1000);
        for (int i = 0; i < n; i++) {
            int index = ready[i].data.u32;
            if (!sent[index] && (ready[i].events & EPOLLOUT)) {
                int error = 0;
                socklen_t size = sizeof error;
                getsockopt(fds[index], SOL_SOCKET, SO_ERROR, &error, &size);
                if (error) {
                    errno = error;
                    die("connect (stream)");
                }
                size_t length;
                const char *request = request_of(index, &length);
                send_all(fds[index], request, length);
                sent[index] = 1;
                pending--;
                opened(index, fds[index]);
                struct epoll_event event = {.events = EPOLLIN, .data.u32 = index};
                epoll_ctl(bench_epoll_fd, EPOLL_CTL_MOD, fds[index], &event);
            }
            if (ready[i].events & EPOLLIN) readable(index);
        }
    }
    free(sent);
    free(fds);
}

static const char *bench_same_request;
static size_t bench_same_length;
static inline const char *bench_same(int index, size_t *length) {
    (void)index;
    *length = bench_same_length;
    return bench_same_request;
}

// `bench_open_streams_each` with the same `request` on every stream.
static inline void bench_open_streams(int count, int (*port_of)(int), const char *request, size_t length,
                                      void (*opened)(int, int), void (*readable)(int)) {
    bench_same_request = request;
    bench_same_length = length;
    bench_open_streams_each(count, port_of, bench_same, opened, readable);
}

// Waits up to `timeout_ms` for stream bytes and hands each readable stream to `readable`.
static void bench_pump(int timeout_ms, void (*readable)(int)) {
    struct epoll_event ready[1024];
    int n = epoll_wait(bench_epoll_fd, ready, 1024, timeout_ms);
    for (int i = 0; i < n; i++)
        if (ready[i].events & EPOLLIN) readable(ready[i].data.u32);
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(const double *sorted, long count, double p) {
    return count == 0 ? -1 : sorted[(long)(p * (count - 1) + 0.5)];
}

// Prints, without a newline, the latency line over every (listener, write) that arrived:
// `latency_ack_p50_ms=… latency_ack_p99_ms=… latency_send_p50_ms=… latency_send_p99_ms=… missed=… events=…`.
// `received[listener * writes + w]` is write w's arrival at a listener (0: never), `ack_ms[w]` and `send_ms[w]`
// when its answer was read and its request sent; an event that arrived before the answer counts as 0 ms after it.
static void bench_print_latency(const double *received, const double *ack_ms, const double *send_ms, int listeners,
                                int writes, long events) {
    long count = (long)listeners * writes, have = 0;
    double *by_ack = malloc((count ? count : 1) * sizeof *by_ack);
    double *by_send = malloc((count ? count : 1) * sizeof *by_send);
    for (long l = 0; l < listeners; l++) {
        for (int w = 0; w < writes; w++) {
            double at = received[l * writes + w];
            if (at == 0) continue;
            by_ack[have] = at - ack_ms[w] < 0 ? 0 : at - ack_ms[w];
            by_send[have] = at - send_ms[w];
            have++;
        }
    }
    qsort(by_ack, have, sizeof *by_ack, compare_doubles);
    qsort(by_send, have, sizeof *by_send, compare_doubles);
    printf("latency_ack_p50_ms=%.2f latency_ack_p99_ms=%.2f latency_send_p50_ms=%.2f latency_send_p99_ms=%.2f "
           "missed=%ld events=%ld",
           percentile(by_ack, have, 0.5), percentile(by_ack, have, 0.99), percentile(by_send, have, 0.5),
           percentile(by_send, have, 0.99), count - have, events);
    free(by_ack);
    free(by_send);
}

#endif
