import Foundation
import KuraCore
import KuraServerTestSupport
import KuraTestSupport
import Testing

@testable import KuraServer

#if canImport(Glibc)
    import Glibc
#endif

/// What a refused `kura import` leaves behind (nothing it made), and how much of a line it reads before refusing it.
@Suite struct TransferRefusalTests {
    @Test("a refused import into an existing directory removes the databases it made, and a server then starts there")
    func refusedImportCleansUp() throws {
        let scratch = try TemporaryDirectory("transfer-refusal")
        defer { scratch.remove() }
        let target = scratch.file("data")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try "mine".write(toFile: target + "/notes.txt", atomically: true, encoding: .utf8)
        var lines = TransferLineTests.good
        lines[4] = TransferLineTests.document("notes")
        #expect(throws: TransferError.self) {
            try TransferLineTests.importing(lines, into: target, in: scratch)
        }
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: target))
        #expect(left.subtracting([DataDirectoryLock.fileName]) == ["notes.txt"], "\(left)")
        // Empty databases left behind would make it a used directory without a rules file, which does not start.
        var configuration = TransferLineTests.configuration(target)
        configuration.http.port = 0
        let node = try KuraNode(configuration: configuration, logger: TransferRoundTripTests.quiet)
        try node.start()
        node.stop()
    }

    @Test("backup, export and import refuse files inside the data directory; the server's database is untouched")
    func filesInsideTheDataDirectory() throws {
        try withTestKura { (server: TestKura) throws in
            #expect(try server.request("PUT", "/api/docs/notes/a", json: ["data": ["n": 1]]).status == 200)
            let data = server.dataDirectory
            let configuration = TransferLineTests.configuration(data)
            for target in [
                data + "/documents.db", data + "/copy.db",
                data + "/../" + (data as NSString).lastPathComponent + "/x.db",
            ] {
                #expect {
                    try KuraNode.backup(configuration: configuration, to: target)
                } throws: { error in
                    "\(error)".contains("the backup directory \(target) is inside the data directory \(data)")
                }
            }
            #expect {
                try KuraNode.export(
                    configuration: configuration, to: data + "/app.ndjson", logger: TransferRoundTripTests.quiet,
                    interactive: false)
            } throws: { error in "\(error)".contains("the export file \(data)/app.ndjson is inside the data directory")
            }
            #expect(!FileManager.default.fileExists(atPath: data + "/copy.db"))
            #expect(!FileManager.default.fileExists(atPath: data + "/app.ndjson"))
            #expect {
                try KuraNode.importFile(
                    configuration: configuration, from: data + "/documents.db", logger: TransferRoundTripTests.quiet,
                    interactive: false)
            } throws: { error in
                "\(error)".contains("the import file \(data)/documents.db is inside the data directory")
            }
            #expect(try server.request("GET", "/api/docs/notes/a").status == 200)
            #expect(try server.request("PUT", "/api/docs/notes/b", json: ["data": ["n": 2]]).status == 200)
        }
    }

    @Test("lines up to the limit are read whole; a longer one is refused with its number")
    func lineLimit() throws {
        let scratch = try TemporaryDirectory("transfer-reader")
        defer { scratch.remove() }
        let file = scratch.file("lines")
        let exact = String(repeating: "a", count: 100)
        try ("first\n\n" + exact + "\n" + exact + "b\nlast").write(toFile: file, atomically: true, encoding: .utf8)
        let reader = try TransferLineReader(path: file, maxLineBytes: 100)
        #expect(try reader.next().map { Array($0) } == Array("first".utf8))
        #expect(try reader.next().map { Array($0) } == [])
        #expect(try reader.next().map { Array($0) } == Array(exact.utf8))
        #expect(reader.lineNumber == 3)
        #expect {
            try reader.next()
        } throws: { error in
            (error as? TransferError)?.message == "\(file):4: the line is longer than 100 bytes"
        }
        let whole = try TransferLineReader(path: file, maxLineBytes: 101)
        var count = 0
        var last: [UInt8] = []
        while let line = try whole.next() {
            count += 1
            last = Array(line)
        }
        #expect(count == 5 && last == Array("last".utf8))
    }

    /// The line comes through a pipe whose writer never ends it: a reader that read lines whole would wait for the
    /// rest forever (and would hold all of it in memory); this one stops at the limit.
    @Test("a line longer than the limit is refused once the limit is passed, not read whole", .timeLimit(.minutes(1)))
    func hugeLineStopsAtTheLimit() throws {
        let scratch = try TemporaryDirectory("transfer-fifo")
        defer { scratch.remove() }
        let fifo = scratch.file("import.ndjson")
        try #require(mkfifo(fifo, 0o600) == 0)
        signal(SIGPIPE, SIG_IGN)  // should the reader close its end first, the writer gets EPIPE, not a signal
        let done = DispatchSemaphore(value: 0)
        let writer = Thread {
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            var bytes = Array("{\"kind\":\"header\"}\n".utf8)
            bytes += [UInt8](repeating: UInt8(ascii: "x"), count: TransferLineReader.maxLineBytes + 1)
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard written > 0 else { return }
                offset += written
            }
            done.wait()  // the pipe stays open: no end of file ends the line
        }
        writer.start()
        defer { done.signal() }
        let reader = try TransferLineReader(path: fifo)
        #expect(try reader.next() != nil)
        #expect {
            try reader.next()
        } throws: { error in
            (error as? TransferError)?.message
                == "\(fifo):2: the line is longer than \(TransferLineReader.maxLineBytes) bytes"
        }
    }
}
