import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// A real browser: headless Chromium's EventSource, driven by Selenium (Tests/Support/listen_browser.py), receives
/// a snapshot and live changes from the in-process server. `make deps-test` installs chromium, chromium-driver and
/// selenium.
@Suite struct ListenBrowserTests {
    @Test("Chromium's EventSource gets the snapshot and live added/removed/modified changes")
    func eventSource() throws {
        try withTestKura { server in
            let script = TestEnvironment.repositoryRoot + "/Tests/Support/listen_browser.py"
            // Close-on-exec pipes (CloseOnExecPipe): a process another test spawns meanwhile must not hold them.
            let output = try CloseOnExecPipe()
            let errors = try CloseOnExecPipe()
            let process = try ChildProcess(
                try TestEnvironment.python(), [script, "http://127.0.0.1:\(server.port)", server.adminKey],
                standardOutput: output.writing, standardError: errors.writing)
            try output.writing.close()
            try errors.writing.close()
            // Read while it runs, so that a full pipe cannot stall it.
            let stdout = Shared(Data())
            let reader = Thread { stdout.withLock { $0 = output.reading.readDataToEndOfFile() } }
            reader.start()
            let status = process.exitStatus(within: 90)
            _ = waitUntil(timeout: 5) { !stdout.current.isEmpty || status != 0 }
            let stderr = String(decoding: errors.reading.readDataToEndOfFile(), as: UTF8.self)
            #expect(status != nil, "the browser script did not finish in 90 s: \(stderr.suffix(2000))")
            #expect(status == 0, "\(stderr.suffix(3000))")

            let result = (try? JSONSerialization.jsonObject(with: stdout.current)) as? [String: Any] ?? [:]
            let events = result["events"] as? [[String: Any]] ?? []
            let names = events.map { $0["name"] as? String ?? "?" }
            #expect(names.first == "connected")
            #expect(names.dropFirst().first == "snapshot")
            let snapshot = events.first { $0["name"] as? String == "snapshot" }?["data"] as? [String: Any]
            let documents = snapshot?["documents"] as? [[String: Any]] ?? []
            #expect(documents.map { $0["id"] as? String } == ["a"])
            var changes: [String] = []
            for event in events where event["name"] as? String == "changes" {
                for change in (event["data"] as? [String: Any])?["changes"] as? [[String: Any]] ?? [] {
                    let document = change["document"] as? [String: Any]
                    changes.append(
                        "\(change["type"] as? String ?? "?") \(document?["id"] as? String ?? "?") "
                            + "\(change["oldIndex"] as? Int ?? -2)→\(change["newIndex"] as? Int ?? -2)")
                }
                // The browser tracked the change-log position from the `id:` lines.
                #expect(Int(event["lastEventId"] as? String ?? "") != nil)
            }
            #expect(changes == ["added b -1→0", "removed a 1→-1", "modified b 0→0"])
        }
    }
}
