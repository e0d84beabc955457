import KuraModel

#if canImport(Glibc)
    import Glibc
#endif

/// Log levels, least to most severe. `info` includes the access log.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug = 0, info, warn, error

    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warn", "warning": self = .warn
        case "error": self = .error
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .debug: "DEBUG"
        case .info: "INFO"
        case .warn: "WARN"
        case .error: "ERROR"
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A line-oriented logger writing to a file descriptor (stderr by default).
/// Each line is one `write(2)`, so lines from different threads never interleave.
public final class Logger: Sendable {
    public let level: LogLevel
    private let fd: Int32

    public init(level: LogLevel = .info, fd: Int32 = 2) {
        self.level = level
        self.fd = fd
    }

    @inlinable public func isEnabled(_ level: LogLevel) -> Bool { level >= self.level }

    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warn(_ message: @autoclosure () -> String) { log(.warn, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        var line: [UInt8] = []
        line.reserveCapacity(96)
        RFC3339.append(WallClock.nowMicros(), to: &line, fractionDigits: 3)
        line.append(0x20)
        line.append(contentsOf: level.name.utf8)
        line.append(0x20)
        line.append(contentsOf: message().utf8)
        line.append(0x0A)
        writeRaw(line)
    }

    /// Writes already-formatted lines (the event loops' buffered access log) in one call.
    public func writeRaw(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { if n < 0 && errno == EINTR { continue } else { return } }
                offset += n
            }
        }
    }
}
