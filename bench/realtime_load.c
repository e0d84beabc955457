// Load client for bench/realtime.sh: many listen streams on one epoll loop, plus a writer thread.
//
//   realtime_load latency PORT KEY LISTENERS WRITES INTERVAL_MS
//       LISTENERS streams on the query {"collection":"feed"}; then WRITES writes (PUT feed/d<i % 10>
//       {"seq": i}) one every INTERVAL_MS on a keep-alive connection. Prints, for every (listener, write), the
//       time from the write's answer (ack) to the event's arrival, and from the write's send:
//           latency_ack_p50_ms=… latency_ack_p99_ms=… latency_send_p50_ms=… latency_send_p99_ms=… missed=…
//       (an event that arrives before the ack counts as 0 ms after it). With LISTEN_PORTS, a second line gives
//       each node's share: node1_ack_p50_ms=… node1_ack_p99_ms=… node2_…
//   realtime_load fanout PORT KEY LISTENERS
//       LISTENERS streams on {"collection":"fan"}; prints "ready N" once all have their snapshot, waits for a line
//       on stdin (the script measures the server's memory meanwhile), writes fan/x once and prints
//           fanout_ack_ms=… fanout_send_ms=…
//       when the last stream has the change.
// With LISTEN_KEYS=FILE (one token per line), listener i signs in with line i % N instead of KEY: streams of many
// different callers, which the server checks one by one (the writes still use WRITER_KEY, else KEY).
//
// C, so that reading ten thousand streams does not measure the client instead of the server. Build: cc -O2
// -pthread bench/realtime_load.c -o realtime_load.
#define _GNU_SOURCE
#include "bench_client.h"
#include <pthread.h>

typedef struct {
    int fd;
    int connected;    // the request was sent
    int snapshot;     // the snapshot arrived
    char line[65536]; // the partial line being read
    size_t length;
} stream_t;

static int port;                 // the writer's node (and the listeners', unless LISTEN_PORTS is set)
static int listen_ports[16];     // LISTEN_PORTS=p1,p2,…: listener i connects to listen_ports[i % count]
static int listen_port_count;
static const char *key;
static const char *writer_key; // WRITER_KEY from the environment, else key: writes may need the admin key
static int listeners, writes, interval_ms;
static stream_t *streams;
static double *ack_ms, *send_ms;  // per write
static double *received;          // [listener * writes + seq]: arrival, 0 if never
static volatile int snapshots;
static volatile long events;

// Listener `index`'s node: spread over LISTEN_PORTS when given (several nodes on one PostgreSQL).
static int listener_port(int index) {
    return listen_port_count ? listen_ports[index % listen_port_count] : port;
}

// PUT /api/docs/PATH {"data":{"seq":SEQ}} on a keep-alive connection; returns when the answer is read.
static void put(int fd, const char *path, int seq) {
    char body[64], request[1024], answer[8192];
    int body_length = snprintf(body, sizeof body, "{\"data\":{\"seq\":%d}}", seq);
    int length = snprintf(request, sizeof request,
                          "PUT /api/docs/%s HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer %s\r\n"
                          "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
                          path, writer_key, body_length, body);
    send_all(fd, request, length);
    size_t have = 0;
    for (;;) {
        ssize_t n = recv(fd, answer + have, sizeof answer - 1 - have, 0);
        if (n <= 0) die("recv (writer)");
        have += n;
        answer[have] = 0;
        char *end = strstr(answer, "\r\n\r\n");
        if (!end) continue;
        char *field = strcasestr(answer, "content-length:");
        long expected = field ? strtol(field + 15, NULL, 10) : 0;
        if ((long)(have - (end + 4 - answer)) >= expected) {
            if (strncmp(answer, "HTTP/1.1 200", 12) != 0 && strncmp(answer, "HTTP/1.1 201", 12) != 0) {
                fprintf(stderr, "realtime_load: write refused: %.200s\n", answer);
                exit(1);
            }
            return;
        }
    }
}

static void *writer(void *unused) {
    (void)unused;
    int fd = connect_to_port(port, 1);
    double next = now_ms();
    for (int i = 0; i < writes; i++) {
        char path[64];
        snprintf(path, sizeof path, "feed/d%d", i % 10);
        send_ms[i] = now_ms();
        put(fd, path, i);
        ack_ms[i] = now_ms();
        next += interval_ms;
        double wait = next - now_ms();
        if (wait > 0) usleep((useconds_t)(wait * 1000));
    }
    close(fd);
    return NULL;
}

// One complete line of a stream's body (chunk-size lines pass through harmlessly).
static void on_line(int index, char *line, double at) {
    stream_t *s = &streams[index];
    if (strncmp(line, "event: snapshot", 15) == 0) {
        if (!s->snapshot) {
            s->snapshot = 1;
            snapshots++;
        }
        return;
    }
    if (strncmp(line, "data: ", 6) != 0 || strstr(line, "\"changes\"") == NULL) return;
    events++;
    for (char *p = strstr(line, "\"seq\":"); p; p = strstr(p + 6, "\"seq\":")) {
        int seq = atoi(p + 6);
        if (received && seq >= 0 && seq < writes && received[(long)index * writes + seq] == 0)
            received[(long)index * writes + seq] = at;
    }
}

static void on_readable(int index) {
    stream_t *s = &streams[index];
    char buffer[65536];
    for (;;) {
        ssize_t n = recv(s->fd, buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        if (n <= 0) {
            fprintf(stderr, "realtime_load: stream %d closed by the server\n", index);
            exit(1);
        }
        double at = now_ms();
        for (ssize_t i = 0; i < n; i++) {
            if (buffer[i] == '\n') {
                s->line[s->length] = 0;
                on_line(index, s->line, at);
                s->length = 0;
            } else if (s->length < sizeof s->line - 1) {
                s->line[s->length++] = buffer[i];
            }
        }
    }
}

static void on_opened(int index, int fd) {
    streams[index].fd = fd;
    streams[index].connected = 1;
}

static char **requests;         // the listen request of each key (LISTEN_KEYS), listener i sending i % count's
static size_t *request_lengths;
static int request_count;

static const char *request_of(int index, size_t *length) {
    *length = request_lengths[index % request_count];
    return requests[index % request_count];
}

static void open_streams(const char *query) {
    // The query, percent-encoded for the URL.
    char encoded[1024];
    size_t out = 0;
    for (const char *p = query; *p && out < sizeof encoded - 4; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
            encoded[out++] = c;
        else
            out += sprintf(encoded + out, "%%%02X", c);
    }
    encoded[out] = 0;
    // One request per key: KEY, or each line of LISTEN_KEYS.
    const char *file = getenv("LISTEN_KEYS");
    char **keys = NULL;
    if (file) {
        FILE *in = fopen(file, "r");
        if (!in) die("LISTEN_KEYS");
        char line[8192];
        while (fgets(line, sizeof line, in)) {
            line[strcspn(line, "\r\n")] = 0;
            if (!*line) continue;
            keys = realloc(keys, (request_count + 1) * sizeof *keys);
            keys[request_count++] = strdup(line);
        }
        fclose(in);
    }
    if (request_count == 0) {
        keys = malloc(sizeof *keys);
        keys[request_count++] = (char *)key;
    }
    requests = calloc(request_count, sizeof *requests);
    request_lengths = calloc(request_count, sizeof *request_lengths);
    for (int i = 0; i < request_count; i++) {
        request_lengths[i] = asprintf(&requests[i],
                                      "GET /api/listen?query=%s HTTP/1.1\r\nHost: bench\r\n"
                                      "Accept: text/event-stream\r\nAuthorization: Bearer %s\r\n\r\n",
                                      encoded, keys[i]);
    }
    streams = calloc(listeners, sizeof *streams);
    bench_open_streams_each(listeners, listener_port, request_of, on_opened, on_readable);
}

static void pump_until(int (*done)(void), double timeout_ms) {
    double deadline = now_ms() + timeout_ms;
    while (!done() && now_ms() < deadline) bench_pump(50, on_readable);
}

static int all_snapshots(void) { return snapshots >= listeners; }

static int fanout_count(void) {
    long have = 0;
    for (int i = 0; i < listeners; i++) have += received[(long)i * writes] != 0;
    return have >= listeners;
}

int main(int argc, char **argv) {
    bench_name = "realtime_load";
    if (argc < 5) {
        fprintf(stderr, "usage: realtime_load latency|fanout PORT KEY LISTENERS [WRITES INTERVAL_MS]\n");
        return 2;
    }
    const char *mode = argv[1];
    port = atoi(argv[2]);
    const char *spread = getenv("LISTEN_PORTS");
    for (const char *p = spread; p && *p && listen_port_count < 16; listen_port_count++) {
        listen_ports[listen_port_count] = atoi(p);
        p = strchr(p, ',');
        if (p) p++;
    }
    key = argv[3];
    writer_key = getenv("WRITER_KEY") ? getenv("WRITER_KEY") : key;
    listeners = atoi(argv[4]);
    if (strcmp(mode, "latency") == 0) {
        if (argc < 7) return 2;
        writes = atoi(argv[5]);
        interval_ms = atoi(argv[6]);
        ack_ms = calloc(writes, sizeof *ack_ms);
        send_ms = calloc(writes, sizeof *send_ms);
        received = calloc((size_t)listeners * writes, sizeof *received);
        open_streams("{\"collection\":\"feed\"}");
        pump_until(all_snapshots, 120000);
        if (!all_snapshots()) {
            fprintf(stderr, "realtime_load: only %d of %d snapshots\n", snapshots, listeners);
            return 1;
        }
        pthread_t thread;
        pthread_create(&thread, NULL, writer, NULL);
        // Pump while the writer runs, then a second more for the last events.
        double stop = -1;
        for (;;) {
            bench_pump(20, on_readable);
            if (stop < 0 && ack_ms[writes - 1] != 0) stop = now_ms() + 1000;
            if (stop >= 0 && now_ms() > stop) break;
        }
        pthread_join(thread, NULL);
        bench_print_latency(received, ack_ms, send_ms, listeners, writes, events);
        printf("\n");
        double *by_ack = malloc((size_t)listeners * writes * sizeof *by_ack);
        // Spread over several nodes: the same per node (node1 is the writer's when LISTEN_PORTS starts with it).
        for (int node = 0; listen_port_count > 1 && node < listen_port_count; node++) {
            long got = 0;
            for (int l = node; l < listeners; l += listen_port_count) {
                for (int w = 0; w < writes; w++) {
                    double at = received[(long)l * writes + w];
                    if (at == 0) continue;
                    by_ack[got++] = at - ack_ms[w] < 0 ? 0 : at - ack_ms[w];
                }
            }
            qsort(by_ack, got, sizeof *by_ack, compare_doubles);
            printf("%snode%d_ack_p50_ms=%.2f node%d_ack_p99_ms=%.2f", node ? " " : "", node + 1,
                   percentile(by_ack, got, 0.5), node + 1, percentile(by_ack, got, 0.99));
        }
        if (listen_port_count > 1) printf("\n");
        return 0;
    }
    if (strcmp(mode, "fanout") == 0) {
        writes = 1;
        received = calloc(listeners, sizeof *received);
        open_streams("{\"collection\":\"fan\"}");
        pump_until(all_snapshots, 300000);
        if (!all_snapshots()) {
            fprintf(stderr, "realtime_load: only %d of %d snapshots\n", snapshots, listeners);
            return 1;
        }
        printf("ready %d\n", listeners);
        fflush(stdout);
        char line[64];
        if (!fgets(line, sizeof line, stdin)) return 1;
        int fd = connect_to_port(port, 1);
        double sent = now_ms();
        put(fd, "fan/x", 0);
        double acked = now_ms();
        pump_until(fanout_count, 30000);
        if (!fanout_count()) {
            fprintf(stderr, "realtime_load: the write did not reach every stream in 30 s\n");
            return 1;
        }
        double last = 0;
        for (int i = 0; i < listeners; i++)
            if (received[i] > last) last = received[i];
        printf("fanout_ack_ms=%.1f fanout_send_ms=%.1f\n", last - acked < 0 ? 0 : last - acked, last - sent);
        close(fd);
        return 0;
    }
    fprintf(stderr, "realtime_load: unknown mode %s\n", mode);
    return 2;
}
