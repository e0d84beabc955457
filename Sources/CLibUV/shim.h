#ifndef KURA_CLIBUV_SHIM_H
#define KURA_CLIBUV_SHIM_H
#include <uv.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>

/// Sets SO_REUSEPORT on a handle's socket so one listener per event loop can share a port.
static inline int kura_set_reuseport(uv_os_fd_t fd) {
    int one = 1;
    return setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
}
#endif
