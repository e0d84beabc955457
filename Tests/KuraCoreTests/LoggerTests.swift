import Foundation
import KuraCore
import KuraModel
import KuraTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The log line format (`<RFC 3339 UTC, milliseconds> <LEVEL> <message>`), level filtering and level names.
@Suite struct LoggerTests {
    /// What `body` logs through a logger at `level` writing into a pipe.
    func captured(level: LogLevel, _ body: (Logger) -> Void) throws -> String {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]) }
        body(Logger(level: level, fd: fds[1]))
        close(fds[1])
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            out += buffer[..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("one line per message: timestamp with milliseconds in UTC, level, message")
    func lineFormat() throws {
        let text = try captured(level: .debug) { $0.warn("disk almost full") }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "one line ending in a newline: \(text)")
        let pattern = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z WARN disk almost full$/#
        #expect(String(lines[0]).wholeMatch(of: pattern) != nil, "\(lines[0])")
    }

    @Test("messages below the level are dropped without being built")
    func filtering() throws {
        let built = Shared(0)
        let text = try captured(level: .warn) { logger in
            logger.debug(
                {
                    built.withLock { $0 += 1 }; return "d"
                }())
            logger.info("i")
            logger.warn("w")
            logger.error("e")
        }
        #expect(
            text.split(separator: "\n").map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == [
                "WARN w", "ERROR e",
            ])
        #expect(built.current == 0)
    }

    @Test("level names: parsing is case-insensitive and knows `warning`; the order is debug < info < warn < error")
    func levels() {
        #expect(LogLevel(name: "DEBUG") == .debug)
        #expect(LogLevel(name: "Info") == .info)
        #expect(LogLevel(name: "warning") == .warn)
        #expect(LogLevel(name: "error") == .error)
        #expect(LogLevel(name: "verbose") == nil)
        #expect(LogLevel.allCases.sorted() == [.debug, .info, .warn, .error])
        #expect(LogLevel.allCases.map(\.name) == ["DEBUG", "INFO", "WARN", "ERROR"])
    }

    @Test("writeRaw writes bytes as they are")
    func raw() throws {
        #expect(try captured(level: .error) { $0.writeRaw(Array("a b\nc\n".utf8)) } == "a b\nc\n")
    }
}
