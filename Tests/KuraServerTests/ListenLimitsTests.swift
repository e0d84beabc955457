import Foundation
import KuraServerTestSupport
import KuraTestSupport
import Testing

/// Heartbeats, timeouts, bounded queues and limits of listen streams.
@Suite struct ListenLimitsTests {
    @Test("heartbeats come at the configured interval and move the resume position; timeouts do not close a stream")
    func heartbeats() throws {
        try withTestKura(configure: {
            $0.realtime.heartbeatSeconds = 0.1
            $0.http.idleTimeoutMs = 100
            $0.http.requestTimeoutMs = 100
        }) { server in
            try server.put("items/a", ["n": 1])
            let stream = try server.listen("?doc=items/a")
            _ = try stream.expect("connected")
            let snapshot = try stream.expect("snapshot")
            // Writes elsewhere move the log on; the heartbeat's id block carries the position to the client.
            try server.put("other/x", ["n": 1])
            let started = Date()
            #expect(try stream.drain(for: 1.2).isEmpty)
            #expect(Date().timeIntervalSince(started) >= 1.1)
            #expect(stream.comments >= 5)
            #expect(!stream.ended)
            #expect(stream.lastEventID == String(try server.kura.store.latestSequence()))
            #expect(stream.lastEventID != snapshot.lastEventID)
            // Still live after ten idle timeouts.
            try server.put("items/a", ["n": 2])
            #expect(ListenTests.kinds(try stream.expect("changes")) == ["modified a"])
        }
    }

    @Test("a client that stops reading overflows: it gets `overflow` and the stream closes, memory stays bounded")
    func overflow() throws {
        try withTestKura(configure: { $0.realtime.maxQueuedBytes = 64 * 1024 }) { server in
            let stream = try server.listen("?query=\(queryParameter(["collection": "big"]))", receiveBuffer: 4096)
            _ = try stream.expect("connected")
            _ = try stream.expect("snapshot")
            // Stop reading; write far more than the socket buffers and the queue hold. What bounds the loop is the
            // number of writes (32 MB), not the time: on a loaded machine 20 s held only ~100 writes, which the
            // kernel's socket buffers absorbed without an overflow.
            let filler = String(repeating: "x", count: 16 * 1024)
            var writes = 0
            let overflowed = try waitUntil(timeout: 600) {
                if writes < 2000 {
                    try server.put("big/d\(writes % 50)", ["text": filler, "i": writes])
                    writes += 1
                }
                return server.kura.realtime.connectionCount == 0
            }
            #expect(overflowed, "after \(writes) writes")
            // Reading now: whole events, then `overflow`, then the end of the stream.
            var skipped: [SSEEvent] = []
            let last = try stream.next("overflow", timeout: 10, skipped: &skipped)
            #expect(last?.json["code"] as? String == "OVERFLOW")
            #expect(skipped.allSatisfy { $0.name == "changes" })
            #expect(skipped.count < writes)
            #expect(try stream.next(timeout: 5) == nil)
            #expect(stream.ended)

            // It resumes from its last event id: the rest of the changes, nothing twice.
            let resumed = try server.listen(
                "?query=\(queryParameter(["collection": "big"]))", headers: [("Last-Event-ID", stream.lastEventID)])
            _ = try resumed.expect("connected")
            let replay = try resumed.expect("changes")
            let delivered = skipped.map { ($0.json["changes"] as? [Any])?.count ?? 0 }.reduce(0, +)
            #expect(delivered + ((replay.json["changes"] as? [Any])?.count ?? 0) == writes)
        }
    }

    @Test("limits: targets per stream (429) and open streams (503)")
    func limits() throws {
        try withTestKura(configure: {
            $0.realtime.maxTargetsPerConnection = 2
            $0.realtime.maxConnections = 1
        }) { server in
            let stream = try server.listen()
            let id = try #require(try stream.expect("connected").json["connectionId"] as? String)
            let two: [[String: Any]] = [["id": "a", "doc": "x/a"], ["id": "b", "doc": "x/b"]]
            #expect(try server.listenPost(id, ["add": two]).status == 200)
            let third = try server.listenPost(id, ["add": [["id": "c", "doc": "x/c"]]])
            #expect(third.status == 429)
            #expect(third.errorCode == "RESOURCE_EXHAUSTED")
            // Replacing an existing target is not a new one.
            #expect(try server.listenPost(id, ["add": [["id": "a", "doc": "x/z"]]]).status == 200)
            let second = try server.listen()
            #expect(second.status == 503)
            stream.close()
            #expect(waitUntil(timeout: 3) { server.kura.realtime.connectionCount == 0 })
            #expect(try server.listen().status == 200)
        }
    }
}
