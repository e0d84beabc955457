import Foundation
import KuraTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kill -9` while writers are busy: every write the server acknowledged must be there after a restart.
@Suite struct CrashTests {
    /// What a writer was told about one document: its version and the `seq` value it wrote.
    struct Acknowledged: Sendable {
        var version: Int
        var seq: Int
    }

    /// The newest acknowledged state of every document, across all rounds.
    final class Ledger: Sendable {
        private let state = Mutex<(documents: [String: Acknowledged], responses: Int)>(([:], 0))

        func record(_ path: String, version: Int, seq: Int) {
            state.withLock { state in
                // Each document has one writer, so a later acknowledgement is always newer.
                if let old = state.documents[path], old.seq > seq { return }
                state.documents[path] = Acknowledged(version: version, seq: seq)
            }
        }

        /// Counts one acknowledged request.
        func acknowledged() { state.withLock { $0.responses += 1 } }

        var snapshot: [String: Acknowledged] { state.withLock { $0.documents } }
        var responses: Int { state.withLock { $0.responses } }
    }

    /// A `kura serve` child process on its own port.
    struct CrashTestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Writes as fast as it can until the connection fails (the server was killed), recording every 2xx.
    static func write(writer: Int, port: Int, key: String, ledger: Ledger, seqBase: Int) {
        guard let connection = try? HTTPConnection(port: port) else { return }
        let auth = [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")]
        var seq = seqBase
        while true {
            seq += 1
            let documents = (0..<3).map { "crash/w\(writer)-d\((seq + $0 * 3) % 8)" }
            do {
                if seq % 2 == 0 {
                    // One document per PUT; the answer is the document as stored.
                    let body = JSON.encode([
                        "data": ["writer": writer, "seq": seq, "pad": String(repeating: "p", count: seq % 200)]
                    ])
                    let response = try connection.send("PUT", "/api/docs/" + documents[0], headers: auth, body: body)
                    guard (200..<300).contains(response.status), let version = response.json["version"] as? Int else {
                        return
                    }
                    ledger.record(documents[0], version: version, seq: seq)
                } else {
                    // Several documents in one atomic commit, with a transform.
                    let writes: [[String: Any]] = documents.map {
                        [
                            "op": "set", "path": $0, "data": ["writer": writer, "seq": seq], "merge": true,
                            "transforms": [["field": "commits", "increment": 1]],
                        ]
                    }
                    let response = try connection.send(
                        "POST", "/api/commit", headers: auth, body: JSON.encode(["writes": writes]))
                    guard (200..<300).contains(response.status),
                        let results = response.json["writeResults"] as? [[String: Any]]
                    else { return }
                    for result in results {
                        guard let path = result["path"] as? String, let version = result["version"] as? Int else {
                            continue
                        }
                        ledger.record(path, version: version, seq: seq)
                    }
                }
                ledger.acknowledged()
            } catch {
                return  // killed mid-request: this write may or may not have happened
            }
        }
    }

    @Test("kill -9 under load loses no acknowledged write (3 rounds)")
    func killNineKeepsAcknowledgedWrites() throws {
        let root = try TemporaryDirectory("crash").path
        let data = root + "/data"
        let log = root + "/kura.log"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let ledger = Ledger()
        let writers = 4

        for round in 0..<3 {
            let server = try ServerProcess(dataDirectory: data, logFile: log)
            defer { server.stop() }
            let key = try String(contentsOfFile: data + "/admin.key", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)

            // Everything acknowledged before the previous kill survived the restart.
            try verify(ledger.snapshot, port: server.port, key: key, round: round)

            let before = ledger.responses
            let group = DispatchGroup()
            for writer in 0..<writers {
                group.enter()
                let port = server.port
                Thread {
                    Self.write(
                        writer: writer, port: port, key: key, ledger: ledger, seqBase: round * 1_000_000)
                    group.leave()
                }.start()
            }
            usleep(UInt32.random(in: 200_000...1_500_000))
            server.kill9()
            #expect(group.wait(timeout: .now() + 10) == .success, "writers did not notice the kill")
            #expect(ledger.responses > before, "round \(round): nothing was acknowledged")
        }

        let server = try ServerProcess(dataDirectory: data, logFile: log)
        defer { server.stop() }
        let key = try String(contentsOfFile: data + "/admin.key", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try verify(ledger.snapshot, port: server.port, key: key, round: 3)
        #expect(ledger.snapshot.count == writers * 8)
    }

    /// Every acknowledged document is there at its acknowledged version and value, or a newer one.
    func verify(_ expected: [String: Acknowledged], port: Int, key: String, round: Int) throws {
        let connection = try HTTPConnection(port: port)
        var lost: [String] = []
        for (path, acknowledged) in expected.sorted(by: { $0.key < $1.key }) {
            let response = try connection.send(
                "GET", "/api/docs/" + path, headers: [("Authorization", "Bearer \(key)")])
            let data = response.json["data"] as? [String: Any]
            let version = response.json["version"] as? Int ?? 0
            let seq = data?["seq"] as? Int ?? 0
            let intact =
                response.status == 200
                && (version > acknowledged.version || (version == acknowledged.version && seq == acknowledged.seq))
                && seq >= acknowledged.seq
            if !intact {
                lost.append(
                    "\(path): acknowledged version \(acknowledged.version) seq \(acknowledged.seq); "
                        + "after restart \(response.status) version \(version) seq \(seq)")
            }
        }
        #expect(
            lost.isEmpty,
            "round \(round): \(lost.count) acknowledged writes lost:\n\(lost.prefix(10).joined(separator: "\n"))")
    }
}

/// JSON for requests, through JSONSerialization.
enum JSON {
    static func encode(_ value: Any) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: value)) ?? Data("null".utf8))
    }
}
