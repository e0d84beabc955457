import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP relay from a loopback port of its own to `127.0.0.1:target` (a PostgreSQL server), which can fall silent:
/// after `silence()`, the connections it holds stay open and relay nothing more either way, as if the server had
/// stopped answering. Its kernel still acknowledges what the client sends, so no TCP timeout ends them: only the
/// client's own deadline notices (a proxy or load balancer whose backend vanished behaves like this). Connections
/// accepted afterwards are relayed as usual.
public final class SilentRelay: Sendable {
    /// The port clients connect to.
    public let port: Int
    private let target: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var stopping = false
        /// Connections numbered below this one relay nothing.
        var silencedBelow = 0
        var accepted = 0
        var sockets: [Int32] = []
    }

    /// Starts relaying to `target` on a free loopback port.
    public init(to target: Int) throws {
        self.target = target
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestFailure("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(listener, raw, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, raw, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw TestFailure("the relay could not listen")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        Thread { [self] in acceptConnections() }.start()
    }

    deinit { stop() }

    /// From now on, the connections open so far relay nothing (and stay open).
    public func silence() {
        state.withLock { $0.silencedBelow = $0.accepted }
    }

    /// Closes every connection and stops accepting.
    public func stop() {
        state.withLock { state in
            guard !state.stopping else { return }
            state.stopping = true
            // Under the lock: a relay thread closes its sockets under it too, so none of these is reused yet.
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in state.sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptConnections() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard server >= 0, connectToLoopback(server, port: target) == 0 else {
                close(client)
                if server >= 0 { close(server) }
                continue
            }
            let number = state.withLock { state -> Int? in
                guard !state.stopping else { return nil }
                state.accepted += 1
                state.sockets += [client, server]
                return state.accepted - 1
            }
            guard let number else {
                close(client)
                close(server)
                return
            }
            Thread { [self] in relay(client, server, number) }.start()
        }
    }

    /// Copies bytes both ways until either side closes, the relay stops, or (silenced) forever without copying.
    private func relay(_ client: Int32, _ server: Int32, _ number: Int) {
        defer {
            state.withLock { state in
                state.sockets.removeAll { $0 == client || $0 == server }
                close(client)
                close(server)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let (stopping, silenced) = state.withLock { ($0.stopping, number < $0.silencedBelow) }
            if stopping { return }
            if silenced {
                usleep(20_000)
                continue
            }
            var descriptors = [
                pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                pollfd(fd: server, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&descriptors, 2, 20) <= 0 { continue }
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let from = index == 0 ? client : server
                let to = index == 0 ? server : client
                let count = read(from, &buffer, buffer.count)
                if count <= 0 { return }
                var sent = 0
                while sent < count {
                    let written = buffer.withUnsafeBytes { write(to, $0.baseAddress! + sent, count - sent) }
                    if written <= 0 { return }
                    sent += written
                }
            }
        }
    }
}
