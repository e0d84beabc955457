import Foundation
import KuraCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads an import file line by line (without the `\n`), counting lines from 1.
final class TransferLineReader {
    /// The longest line accepted: a document's 1 MiB of JSON with room for its escaping and metadata.
    static let maxLineBytes = 8 << 20

    let path: String
    private let file: UnsafeMutablePointer<FILE>
    private var buffer: UnsafeMutablePointer<CChar>?
    private var capacity = 0
    /// The number of the line `next()` returned last.
    private(set) var lineNumber = 0

    init(path: String) throws {
        self.path = path
        guard let file = fopen(path, "r") else {
            throw TransferError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.file = file
    }

    deinit {
        free(buffer)
        fclose(file)
    }

    /// The next line, or `nil` at the end of the file (a last line without `\n` counts).
    func next() throws -> ArraySlice<UInt8>? {
        errno = 0
        let count = getline(&buffer, &capacity, file)
        guard count >= 0, let buffer else {
            if ferror(file) != 0 { throw TransferError("cannot read \(path): \(String(cString: strerror(errno)))") }
            return nil
        }
        lineNumber += 1
        var length = count
        if length > 0 && buffer[length - 1] == 0x0A { length -= 1 }
        guard length <= Self.maxLineBytes else {
            throw TransferError("\(path):\(lineNumber): the line is longer than \(Self.maxLineBytes) bytes")
        }
        return UnsafeRawBufferPointer(start: buffer, count: length).withMemoryRebound(to: UInt8.self) {
            Array($0)[...]
        }
    }
}

/// Writes an export: to a temporary file beside the target, renamed over it only once complete and on disk (so a
/// failed export never leaves a file that looks whole), or to standard output for `-`. Files are created with mode
/// 0600: they hold password hashes.
final class TransferLineWriter {
    private let fd: Int32
    private let target: String?
    private let temporary: String?
    private var pending: [UInt8] = []
    private var finished = false

    init(path: String) throws {
        if path == "-" {
            fd = 1
            target = nil
            temporary = nil
        } else {
            let temporary = path + ".partial-" + SecureRandom.hex(4)
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw TransferError("cannot create \(temporary): \(String(cString: strerror(errno)))")
            }
            fd = descriptor
            target = path
            self.temporary = temporary
        }
        pending.reserveCapacity(Self.flushBytes + 4096)
    }

    deinit {
        guard let temporary, !finished else { return }
        close(fd)
        unlink(temporary)
    }

    private static let flushBytes = 1 << 20

    func write(_ line: [UInt8]) throws {
        pending.append(contentsOf: line)
        if pending.count >= Self.flushBytes { try flush() }
    }

    private func flush() throws {
        var offset = 0
        while offset < pending.count {
            let n = pending.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw TransferError("cannot write the export: \(String(cString: strerror(errno)))") }
            offset += n
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Flushes, and for a file fsyncs it and renames it into place.
    func finish() throws {
        try flush()
        guard let target, let temporary else { return }
        guard fsync(fd) == 0 else {
            throw TransferError("cannot fsync \(temporary): \(String(cString: strerror(errno)))")
        }
        close(fd)
        finished = true
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw TransferError("cannot rename \(temporary) to \(target): \(reason)")
        }
    }
}

/// A failed export or import, with a message for the command line.
public struct TransferError: Error, CustomStringConvertible {
    /// What went wrong, with the file and line where there is one.
    public let message: String
    /// A usage-level refusal (bad line, non-empty target: exit 2) or a failure while writing (exit 1).
    public let exitCode: Int32

    init(_ message: String, exitCode: Int32 = 2) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}
