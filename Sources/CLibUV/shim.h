#ifndef KURA_CLIBUV_SHIM_H
#define KURA_CLIBUV_SHIM_H
#include <uv.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/un.h>

/// Sets SO_REUSEPORT on a handle's socket so one listener per event loop can share a port.
static inline int kura_set_reuseport(uv_os_fd_t fd) {
    int one = 1;
    return setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
}

/// Whether another socket already holds `address` (a listening server, say): binds a throwaway socket there with
/// SO_REUSEADDR (as libuv does, so connections in TIME_WAIT do not count) but without SO_REUSEPORT, then closes it.
/// Returns 0 when the address is free, else the errno of the failure (EADDRINUSE when taken).
static inline int kura_probe_address(const struct sockaddr *address) {
    socklen_t length = address->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    int fd = socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
    int one = 1;
    int rc = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 ? bind(fd, address, length) : -1;
    int error = rc == 0 ? 0 : errno;
    close(fd);
    return error;
}

/// Claims the name "kura-http-port-<port>" in Linux's abstract socket namespace, which is per network namespace
/// like TCP ports: binding a name is atomic and the kernel drops it when the holder exits, so at most one process
/// holds a port's name at a time. Returns the descriptor that holds it (close it to release), or -errno
/// (-EADDRINUSE when another process holds it). Elsewhere than Linux, returns -ENOTSUP.
static inline int kura_claim_port_name(int port) {
#ifdef __linux__
    struct sockaddr_un address;
    memset(&address, 0, sizeof(address));
    address.sun_family = AF_UNIX;
    int length = snprintf(address.sun_path + 1, sizeof(address.sun_path) - 1, "kura-http-port-%d", port);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (bind(fd, (struct sockaddr *)&address, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length)) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
#else
    (void)port;
    return -ENOTSUP;
#endif
}
#endif
