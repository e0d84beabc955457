import Foundation
import KuraTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A listener on the whole `items` collection that lives across every crash: it reads the stream while the load
/// runs, and after a restart resumes with the last event id it had. It keeps the collection as the events describe
/// it and checks every change against it as it comes: a created document arrives at version 1, a changed one at
/// exactly one more than it had, a removed one was there. A missed change (a gap in the change log) or a repeated
/// one breaks that chain.
final class CrashListener: @unchecked Sendable {
    static let target = "/api/listen?query=%7B%22collection%22%3A%22items%22%7D"

    private(set) var stream: SSEClient?
    /// path → version, as the events say.
    private(set) var model: [String: Int] = [:]
    /// Every change delivered.
    private(set) var seen: Set<CrashEvent> = []
    private(set) var lastID = ""
    private var lastSequence = -1
    private(set) var failures: [String] = []
    private(set) var changesApplied = 0
    private(set) var resumes = 0

    /// Opens the stream (a snapshot the first time, a resume from the last event id after).
    func connect(port: Int, key: String) throws {
        stream?.close()
        var headers = [("Authorization", "Bearer \(key)")]
        if !lastID.isEmpty {
            headers.append(("Last-Event-ID", lastID))
            resumes += 1
        }
        let stream = try SSEClient(port: port, path: Self.target, headers: headers)
        guard stream.status == 200 else {
            throw TestFailure("listen answered \(stream.status): \(try stream.errorBody())")
        }
        _ = try stream.expect("connected", timeout: 60)
        self.stream = stream
    }

    /// Reads events until the stream ends or `stop` is set.
    func run(stop: Shared<Bool>) {
        guard let stream else { return }
        while !stop.current {
            guard let event = try? stream.next(timeout: 0.2) else {
                if stream.ended { break }
                continue
            }
            handle(event)
        }
        noteID()
    }

    /// The stream's last event id, once it moved (a heartbeat with an id moves it without an event).
    private func noteID() {
        if let id = stream?.lastEventID, !id.isEmpty { lastID = id }
    }

    private func handle(_ event: SSEEvent) {
        defer { noteID() }
        switch event.name {
        case "snapshot":
            guard lastSequence < 0 else {
                failures.append("a snapshot came after resuming from \(lastID): \(event)")
                return
            }
            for document in event.json["documents"] as? [[String: Any]] ?? [] {
                guard let path = document["path"] as? String, let version = document["version"] as? Int else {
                    continue
                }
                model[path] = version
                seen.insert(CrashEvent(path: path, version: version, removed: false))
            }
        case "changes":
            for change in event.json["changes"] as? [[String: Any]] ?? [] { apply(change, event) }
        case "connected": return
        default:
            failures.append("unexpected event \(event)")
            return
        }
        guard let sequence = Int(event.lastEventID) else {
            failures.append("event id \(event.lastEventID) is not a sequence: \(event)")
            return
        }
        if sequence < lastSequence { failures.append("event id went back from \(lastSequence) to \(sequence)") }
        lastSequence = sequence
    }

    private func apply(_ change: [String: Any], _ event: SSEEvent) {
        guard let type = change["type"] as? String, let document = change["document"] as? [String: Any],
            let path = document["path"] as? String, let version = document["version"] as? Int
        else {
            failures.append("malformed change in \(event)")
            return
        }
        changesApplied += 1
        let had = model[path]
        switch type {
        case "added":
            if had != nil || version != 1 {
                failures.append("\(path) added at v\(version) while the listener had \(had.map { "v\($0)" } ?? "none")")
            }
            model[path] = version
            seen.insert(CrashEvent(path: path, version: version, removed: false))
        case "modified":
            if had.map({ $0 + 1 }) != version {
                failures.append(
                    "\(path) modified to v\(version) while the listener had \(had.map { "v\($0)" } ?? "none")"
                        + " (a missed or repeated change)")
            }
            model[path] = version
            seen.insert(CrashEvent(path: path, version: version, removed: false))
        case "removed":
            if had != version {
                failures.append(
                    "\(path) removed from v\(version) while the listener had \(had.map { "v\($0)" } ?? "none")")
            }
            model[path] = nil
            seen.insert(CrashEvent(path: path, version: version, removed: true))
        default:
            failures.append("unknown change type \(type)")
        }
    }

    /// Reads (resuming first if the stream ended) until the listener's collection is `actual` (path → version),
    /// or nothing new came for `quiet` while it still differs (then the difference is a failure).
    func catchUp(to actual: [String: Int], port: Int, key: String, quiet: Duration = .seconds(60)) throws {
        if stream == nil || stream!.ended { try connect(port: port, key: key) }
        var idleSince = ContinuousClock.now
        while model != actual {
            if let event = try stream!.next(timeout: 0.5) {
                handle(event)
                idleSince = .now
                continue
            }
            if stream!.ended {
                try connect(port: port, key: key)
                idleSince = .now
                continue
            }
            if ContinuousClock.now - idleSince > quiet {
                let differences = Set(actual.keys).union(model.keys).filter { actual[$0] != model[$0] }.sorted()
                failures.append(
                    "the listener's collection differs from the store's after \(quiet) without events at id "
                        + "\(lastID): "
                        + differences.prefix(10).map {
                            "\($0): store \(actual[$0].map { "v\($0)" } ?? "none"), listener \(model[$0].map { "v\($0)" } ?? "none")"
                        }.joined(separator: "; "))
                return
            }
        }
    }
}
