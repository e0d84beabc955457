import Foundation
import KuraPostgres
import KuraTestSupport
import Testing

@Suite(TestPostgres.available)
struct NotifyTests {
    @Test func notificationsArriveOnCommitOnly() throws {
        let url = try TestPostgres.freshDatabase()
        let listener = try PostgresConnection(url: url)
        let sender = try PostgresConnection(url: url)
        try listener.listen("changes")
        #expect(try listener.notifications().isEmpty)

        #expect(throws: PostgresError.self) {
            try sender.transaction { sender in
                try sender.notify("changes", payload: "rolled back")
                try sender.query("SELECT 1 / 0")
            }
        }
        try sender.transaction { sender in
            try sender.notify("changes", payload: "1")
            try sender.notify("changes", payload: "2")
            try sender.notify("elsewhere", payload: "not ours")
        }
        var received: [PostgresNotification] = []
        #expect(
            waitUntil(timeout: 10) {
                received += (try? listener.notifications()) ?? []; return received.count >= 2
            })
        #expect(received.map(\.payload) == ["1", "2"])
        #expect(received.allSatisfy { $0.channel == "changes" && $0.senderProcessID == sender.serverProcessID })

        try listener.unlisten("changes")
        try sender.notify("changes", payload: "after unlisten")
        try listener.query("SELECT 1")  // a round trip, so anything sent before it has arrived
        #expect(try listener.notifications().isEmpty)
    }

    @Test func waitingBlocksUntilANotificationArrives() throws {
        let url = try TestPostgres.freshDatabase()
        let listener = try PostgresConnection(url: url)
        try listener.listen("wake")
        let started = DispatchSemaphore(value: 0)
        let sender = TestThread {
            started.wait()
            usleep(100_000)
            try PostgresConnection(url: url).notify("wake", payload: "now")
        }
        started.signal()
        let received = try listener.notifications(waitingUpTo: .seconds(30))
        try sender.join()
        #expect(received.map(\.payload) == ["now"])
    }

    @Test func aSessionLostWhileWaitingIsReported() throws {
        let url = try TestPostgres.freshDatabase()
        let listener = try PostgresConnection(url: url)
        try listener.listen("wake")
        try PostgresConnection(url: url).query(
            "SELECT pg_terminate_backend($1::int)", [.int(Int64(listener.serverProcessID))])
        // Until the loss is seen, waits may return empty; it must be reported well before the timeouts add up.
        var lost: PostgresError?
        for _ in 0..<5 where lost == nil {
            do { _ = try listener.notifications(waitingUpTo: .seconds(10)) } catch let error as PostgresError {
                lost = error
            }
        }
        #expect(lost?.isConnectionFailure == true)
        try listener.reconnect()
        try PostgresConnection(url: url).notify("wake", payload: "again")
        #expect(try listener.notifications(waitingUpTo: .seconds(10)).map(\.payload) == ["again"])
    }

    @Test func waitingGivesUpAfterItsTimeout() throws {
        let listener = try PostgresConnection(url: try TestPostgres.freshDatabase())
        try listener.listen("quiet")
        #expect(listener.socket >= 0)
        #expect(try listener.notifications(waitingUpTo: .milliseconds(50)).isEmpty)
    }
}
