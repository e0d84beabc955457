// Listener client for bench/pocketbase.sh's row 6: LISTENERS realtime streams on one server, kura or PocketBase,
// all signed in as the same user, then WRITES writes by that user, one every INTERVAL_MS, each changing one of ten
// records of the collection `feed` (ids d00000000000000 … d00000000000009, owned by the user). Prints the time from
// each write's answer (ack) to its event at each listener:
//
//   pocketbase-listen kura|pocketbase PORT TOKEN LISTENERS WRITES INTERVAL_MS
//       -> latency_ack_p50_ms=… latency_ack_p99_ms=… latency_send_p50_ms=… latency_send_p99_ms=… missed=… events=…
//          connect_s=…
//
// kura:       GET /api/listen?query={"collection":"feed"} (Authorization: Bearer TOKEN); ready at its `snapshot`;
//             writes PATCH /api/docs/feed/<id> {"data":{"seq":i}}; events `changes`.
// PocketBase: GET /api/realtime; at its PB_CONNECT event, POST /api/realtime {"clientId","subscriptions":["feed/*"]}
//             (Authorization: TOKEN); ready at the POST's 204; writes PATCH /api/collections/feed/records/<id>
//             {"seq":i}; events `feed/*`.
// An event that arrives before the writer has read its answer counts as 0 ms after the ack. The client reads until
// every listener has heard every write, or DRAIN_MS (default 60000) after the last write's answer; what has not
// arrived by then counts as missed. The streams' bodies are
// decoded (chunked or not) before the SSE lines are read. One epoll loop for the streams, one thread for the writer,
// in C so that the client costs little beside the servers. SEQ_BASE=n makes write i set seq to n + i: the script
// gives each run its own base, so that no write sets a record to the value it already has. Build: cc -O2 -pthread bench/pocketbase-listen.c.
#define _GNU_SOURCE
#include "bench_client.h"
#include <pthread.h>

enum { KURA, POCKETBASE };
enum { HEADERS, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, PLAIN };

typedef struct {
    int fd;
    int sent;         // the GET was sent
    int ready;        // kura: the snapshot arrived; PocketBase: the subscription was answered
    int state;        // HEADERS, then CHUNK_* (chunked body) or PLAIN
    long chunk_left;  // bytes left in the current chunk
    char head[4096];  // the response head, then the current chunk-size line
    size_t head_length;
    char line[16384]; // the current SSE line
    size_t line_length;
    char event[64];   // the current event's name
    char client_id[64];
} stream_t;

static int server, port, listeners, writes, interval_ms;
static long seq_base; // SEQ_BASE from the environment: write i sets seq to SEQ_BASE + i, so that a run's values are new
static const char *token;
static stream_t *streams;
static double *ack_ms, *send_ms, *received; // received[listener * writes + seq]: arrival, 0 if never
static int ready_count, connected_count;
static long events, arrived; // arrived: (listener, write) pairs heard

// Sends METHOD PATH with a JSON body on a blocking keep-alive connection and reads the answer (Content-Length or
// chunked); fails unless its status is `want`.
static void call(int fd, const char *method, const char *path, const char *body, int want) {
    char request[2048], answer[16384];
    int length = snprintf(request, sizeof request,
                          "%s %s HTTP/1.1\r\nHost: bench\r\nAuthorization: %s%s\r\n"
                          "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                          method, path, server == KURA ? "Bearer " : "", token, strlen(body), body);
    send_all(fd, request, length);
    size_t have = 0;
    for (;;) {
        ssize_t n = recv(fd, answer + have, sizeof answer - 1 - have, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("recv (writer)");
        have += n;
        answer[have] = 0;
        char *end = strstr(answer, "\r\n\r\n");
        if (!end) continue;
        char *body_start = end + 4;
        int complete;
        char *field = strcasestr(answer, "content-length:");
        if (field && field < end) {
            complete = (long)(have - (body_start - answer)) >= strtol(field + 15, NULL, 10);
        } else if (strcasestr(answer, "transfer-encoding: chunked")) {
            complete = strstr(body_start, "0\r\n\r\n") != NULL;
        } else {
            complete = 1;
        }
        if (!complete) continue;
        if (atoi(answer + 9) != want) {
            fprintf(stderr, "pocketbase-listen: %s %s answered %.300s\n", method, path, answer);
            exit(1);
        }
        return;
    }
}

static void record_id(int i, char *id) { snprintf(id, 16, "d%014d", i % 10); }

static void *writer(void *unused) {
    (void)unused;
    int fd = connect_to_port(port, 1);
    double next = now_ms();
    for (int i = 0; i < writes; i++) {
        char id[16], path[128], body[64];
        record_id(i, id);
        if (server == KURA) {
            snprintf(path, sizeof path, "/api/docs/feed/%s", id);
            snprintf(body, sizeof body, "{\"data\":{\"seq\":%ld}}", seq_base + i);
        } else {
            snprintf(path, sizeof path, "/api/collections/feed/records/%s", id);
            snprintf(body, sizeof body, "{\"seq\":%ld}", seq_base + i);
        }
        send_ms[i] = now_ms();
        call(fd, "PATCH", path, body, 200);
        ack_ms[i] = now_ms();
        next += interval_ms;
        double wait = next - now_ms();
        if (wait > 0) usleep((useconds_t)(wait * 1000));
    }
    close(fd);
    return NULL;
}

// One SSE line of stream `index`, complete.
static void on_line(int index, const char *line, double at) {
    stream_t *s = &streams[index];
    if (strncmp(line, "event:", 6) == 0) {
        const char *name = line + 6;
        while (*name == ' ') name++;
        snprintf(s->event, sizeof s->event, "%s", name);
        return;
    }
    if (line[0] == 0) { // the end of an event
        s->event[0] = 0;
        return;
    }
    if (strncmp(line, "data:", 5) != 0) return;
    if (server == KURA && strcmp(s->event, "snapshot") == 0) {
        if (!s->ready) {
            s->ready = 1;
            ready_count++;
        }
        return;
    }
    if (server == POCKETBASE && strcmp(s->event, "PB_CONNECT") == 0) {
        const char *p = strstr(line, "\"clientId\":\"");
        if (p && !s->client_id[0]) {
            p += 12;
            size_t n = strcspn(p, "\"");
            if (n >= sizeof s->client_id) n = sizeof s->client_id - 1;
            memcpy(s->client_id, p, n);
            s->client_id[n] = 0;
            connected_count++;
        }
        return;
    }
    int change = server == KURA ? strcmp(s->event, "changes") == 0 : strcmp(s->event, "feed/*") == 0;
    if (!change) return;
    events++;
    for (const char *p = strstr(line, "\"seq\":"); p; p = strstr(p + 6, "\"seq\":")) {
        long seq = strtol(p + 6, NULL, 10) - seq_base;
        if (received && seq >= 0 && seq < writes && received[(long)index * writes + seq] == 0) {
            received[(long)index * writes + seq] = at;
            arrived++;
        }
    }
}

// Body bytes of stream `index`, after the chunked framing is taken off.
static void on_body(int index, const char *bytes, size_t n, double at) {
    stream_t *s = &streams[index];
    for (size_t i = 0; i < n; i++) {
        if (bytes[i] == '\n') {
            size_t length = s->line_length;
            if (length > 0 && s->line[length - 1] == '\r') length--;
            s->line[length] = 0;
            on_line(index, s->line, at);
            s->line_length = 0;
        } else if (s->line_length < sizeof s->line - 1) {
            s->line[s->line_length++] = bytes[i];
        }
    }
}

static void on_bytes(int index, const char *bytes, size_t n, double at) {
    stream_t *s = &streams[index];
    size_t i = 0;
    while (i < n) {
        switch (s->state) {
        case HEADERS:
        case CHUNK_SIZE:
        case CHUNK_END: {
            char c = bytes[i++];
            if (s->head_length < sizeof s->head - 1) s->head[s->head_length++] = c;
            s->head[s->head_length] = 0;
            if (s->state == HEADERS) {
                if (s->head_length >= 4 && strcmp(s->head + s->head_length - 4, "\r\n\r\n") == 0) {
                    if (strncmp(s->head, "HTTP/1.1 200", 12) != 0) {
                        fprintf(stderr, "pocketbase-listen: stream %d answered %.300s\n", index, s->head);
                        exit(1);
                    }
                    s->state = strcasestr(s->head, "transfer-encoding: chunked") ? CHUNK_SIZE : PLAIN;
                    s->head_length = 0;
                }
            } else if (c == '\n') {
                if (s->state == CHUNK_SIZE) {
                    s->chunk_left = strtol(s->head, NULL, 16);
                    s->state = s->chunk_left > 0 ? CHUNK_DATA : CHUNK_END;
                } else {
                    s->state = CHUNK_SIZE; // the CRLF after a chunk's data
                }
                s->head_length = 0;
            }
            break;
        }
        case CHUNK_DATA: {
            size_t take = n - i < (size_t)s->chunk_left ? n - i : (size_t)s->chunk_left;
            on_body(index, bytes + i, take, at);
            i += take;
            s->chunk_left -= take;
            if (s->chunk_left == 0) s->state = CHUNK_END;
            break;
        }
        case PLAIN:
            on_body(index, bytes + i, n - i, at);
            i = n;
            break;
        }
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
            fprintf(stderr, "pocketbase-listen: stream %d closed by the server\n", index);
            exit(1);
        }
        on_bytes(index, buffer, n, now_ms());
    }
}

static void pump(int timeout_ms) { bench_pump(timeout_ms, on_readable); }

static int server_port(int index) {
    (void)index;
    return port;
}

static void on_opened(int index, int fd) {
    streams[index].fd = fd;
    streams[index].sent = 1;
}

static void open_streams(void) {
    char request[4096];
    int length;
    if (server == KURA) {
        length = snprintf(request, sizeof request,
                          "GET /api/listen?query=%%7B%%22collection%%22%%3A%%22feed%%22%%7D HTTP/1.1\r\nHost: bench\r\n"
                          "Accept: text/event-stream\r\nAuthorization: Bearer %s\r\n\r\n",
                          token);
    } else {
        length = snprintf(request, sizeof request,
                          "GET /api/realtime HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n");
    }
    streams = calloc(listeners, sizeof *streams);
    bench_open_streams(listeners, server_port, request, length, on_opened, on_readable);
}

int main(int argc, char **argv) {
    bench_name = "pocketbase-listen";
    if (argc != 7 || (strcmp(argv[1], "kura") != 0 && strcmp(argv[1], "pocketbase") != 0)) {
        fprintf(stderr, "usage: pocketbase-listen kura|pocketbase PORT TOKEN LISTENERS WRITES INTERVAL_MS\n");
        return 2;
    }
    server = strcmp(argv[1], "kura") == 0 ? KURA : POCKETBASE;
    port = atoi(argv[2]);
    token = argv[3];
    listeners = atoi(argv[4]);
    writes = atoi(argv[5]);
    interval_ms = atoi(argv[6]);
    seq_base = getenv("SEQ_BASE") ? strtol(getenv("SEQ_BASE"), NULL, 10) : 0;
    ack_ms = calloc(writes, sizeof *ack_ms);
    send_ms = calloc(writes, sizeof *send_ms);
    received = calloc((size_t)listeners * writes, sizeof *received);

    double began = now_ms();
    open_streams();
    if (server == POCKETBASE) {
        double deadline = now_ms() + 120000;
        while (connected_count < listeners && now_ms() < deadline) pump(50);
        if (connected_count < listeners) {
            fprintf(stderr, "pocketbase-listen: only %d of %d PB_CONNECT events\n", connected_count, listeners);
            return 1;
        }
        int fd = connect_to_port(port, 1);
        for (int i = 0; i < listeners; i++) {
            char body[256];
            snprintf(body, sizeof body, "{\"clientId\":\"%s\",\"subscriptions\":[\"feed/*\"]}", streams[i].client_id);
            call(fd, "POST", "/api/realtime", body, 204);
            streams[i].ready = 1;
            ready_count++;
            pump(0);
        }
        close(fd);
    }
    double deadline = now_ms() + 120000;
    while (ready_count < listeners && now_ms() < deadline) pump(50);
    if (ready_count < listeners) {
        fprintf(stderr, "pocketbase-listen: only %d of %d streams ready\n", ready_count, listeners);
        return 1;
    }
    double connected = now_ms();

    pthread_t thread;
    pthread_create(&thread, NULL, writer, NULL);
    // Read while the writer runs, then until every listener has every write or DRAIN_MS (default 60000) have passed
    // since the last write's answer: a server that falls behind is measured late, not cut off.
    double drain = getenv("DRAIN_MS") ? atof(getenv("DRAIN_MS")) : 60000;
    double stop = -1;
    for (;;) {
        pump(20);
        if (stop < 0 && ack_ms[writes - 1] != 0) stop = now_ms() + drain;
        if (arrived >= (long)listeners * writes && ack_ms[writes - 1] != 0) break;
        if (stop >= 0 && now_ms() > stop) break;
    }
    pthread_join(thread, NULL);

    bench_print_latency(received, ack_ms, send_ms, listeners, writes, events);
    printf(" connect_s=%.1f\n", (connected - began) / 1000);
    return 0;
}
