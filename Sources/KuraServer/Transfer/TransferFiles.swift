import Foundation
import KuraCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads an import file line by line (without the `\n`), counting lines from 1. A line is read in chunks and
/// refused as soon as it passes `maxLineBytes`, so a huge line never sits whole in memory.
final class TransferLineReader {
    /// The longest line accepted: a document's 1 MiB of JSON with room for its escaping and metadata.
    static let maxLineBytes = 8 << 20

    let path: String
    let maxLineBytes: Int
    private let descriptor: Int32
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    /// The unread part of `chunk`.
    private var unread = 0..<0
    private var ended = false
    private var line: [UInt8] = []
    /// The number of the line `next()` returned last.
    private(set) var lineNumber = 0

    init(path: String, maxLineBytes: Int = TransferLineReader.maxLineBytes) throws {
        self.path = path
        self.maxLineBytes = maxLineBytes
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TransferError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The next line, or `nil` at the end of the file (a last line without `\n` counts).
    func next() throws -> ArraySlice<UInt8>? {
        line.removeAll(keepingCapacity: true)
        var started = false
        while true {
            if unread.isEmpty {
                guard !ended, try fill() else { break }
            }
            started = true
            if let newline = chunk[unread].firstIndex(of: 0x0A) {
                try append(unread.lowerBound..<newline)
                unread = (newline + 1)..<unread.upperBound
                lineNumber += 1
                return line[...]
            }
            try append(unread)
            unread = unread.upperBound..<unread.upperBound
        }
        guard started else { return nil }
        lineNumber += 1
        return line[...]
    }

    /// Reads the next chunk; false at the end of the file.
    private func fill() throws -> Bool {
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw TransferError("cannot read \(path): \(String(cString: strerror(errno)))") }
            ended = count == 0
            unread = 0..<count
            return count > 0
        }
    }

    private func append(_ range: Range<Int>) throws {
        guard line.count + range.count <= maxLineBytes else {
            throw TransferError("\(path):\(lineNumber + 1): the line is longer than \(maxLineBytes) bytes")
        }
        line.append(contentsOf: chunk[range])
    }
}

/// The entries of a data directory before a command added to it, so that a refused import removes exactly what it
/// made: new files (a database with its `-wal` and `-shm`), and the lock file and the directory itself when the
/// directory is new. A `-wal` or `-shm` beside a database that was already there is that database's, left alone.
struct CreatedFiles {
    let dataDirectory: String
    let directoryExisted: Bool
    let before: Set<String>

    init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        var isDirectory: ObjCBool = false
        directoryExisted = FileManager.default.fileExists(atPath: dataDirectory, isDirectory: &isDirectory)
        before = Set((try? FileManager.default.contentsOfDirectory(atPath: dataDirectory)) ?? [])
    }

    /// Removes what is new since `init` (call with the databases closed and the directory still locked by
    /// `lockFile`).
    func removeNew(lockFile: String, logger: Logger) {
        guard let now = try? FileManager.default.contentsOfDirectory(atPath: dataDirectory) else { return }
        let lockName = (lockFile as NSString).lastPathComponent
        for name in now where !before.contains(name) && name != lockName {
            if let suffix = ["-wal", "-shm", "-journal"].first(where: { name.hasSuffix($0) }),
                before.contains(String(name.dropLast(suffix.count)))
            {
                continue
            }
            let path = (dataDirectory as NSString).appendingPathComponent(name)
            if unlink(path) != 0 { logger.warn("import: cannot remove \(path): \(String(cString: strerror(errno)))") }
        }
        guard !directoryExisted else { return }
        unlink(lockFile)
        if rmdir(dataDirectory) != 0 {
            logger.warn("import: cannot remove \(dataDirectory): \(String(cString: strerror(errno)))")
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
        if let error = writeAll(fd, pending) {
            throw TransferError("cannot write the export: \(String(cString: strerror(error)))")
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
