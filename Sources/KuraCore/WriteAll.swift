#if canImport(Glibc)
    import Glibc
#endif

/// Writes every byte of `bytes` to `fd`, going on after short writes and `EINTR`. Returns `nil` once all are
/// written, else the `errno` of the write that failed (for the caller's own error, which names the file).
public func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return n == 0 ? EIO : errno }
        offset += n
    }
    return nil
}
