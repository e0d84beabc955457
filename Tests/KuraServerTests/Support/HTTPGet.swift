import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A one-shot `GET` over a plain socket (`Connection: close`, read to EOF). Test targets cannot import each other,
/// so this is a minimal copy of what KuraHTTPTests' `RawClient` does; engine-level cases belong there.
struct HTTPGet {
    var status = 0
    var head = ""
    var body = ""

    func header(_ name: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                return String(parts[1].drop { $0 == " " })
            }
        }
        return nil
    }

    init(port: Int, path: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPGetError(call: "socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw HTTPGetError(call: "connect") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
        else {
            throw HTTPGetError(call: "send")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n >= 0 else { throw HTTPGetError(call: "recv") }
            if n == 0 { break }
            received += buffer[..<n]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw HTTPGetError(call: "parse") }
        head = String(text[..<split.lowerBound])
        body = String(text[split.upperBound...])
        status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

struct HTTPGetError: Error {
    let call: String
    let code = errno
}
