import Foundation
import KuraTestSupport

/// A document of the crash test's `items` collection as the test knows it: what was acknowledged, or what a write
/// in flight at the crash would have made of it.
struct CrashDocument: Equatable, CustomStringConvertible {
    var exists: Bool
    var version = 0
    /// The id of the operation that wrote it last (the `w` field every write sets).
    var w = 0
    /// The `n` field, which commits increment with a transform.
    var n = 0
    /// The `updateTime` the server answered, when it answered one.
    var updateTime: String?
    /// The `ts` field a `serverTimestamp` transform set, when known.
    var ts: String?

    static let absent = CrashDocument(exists: false)

    /// The document as read back: `updateTime` and `ts` are always known.
    init(observed json: [String: Any]) {
        exists = true
        version = json["version"] as? Int ?? -1
        updateTime = json["updateTime"] as? String
        let data = json["data"] as? [String: Any] ?? [:]
        w = data["w"] as? Int ?? -1
        n = data["n"] as? Int ?? -1
        ts = data["ts"] as? String
    }

    init(exists: Bool, version: Int = 0, w: Int = 0, n: Int = 0, updateTime: String? = nil, ts: String? = nil) {
        self.exists = exists
        self.version = version
        self.w = w
        self.n = n
        self.updateTime = updateTime
        self.ts = ts
    }

    /// Whether `observed` is this state (fields this state does not know are not compared).
    func matches(_ observed: CrashDocument) -> Bool {
        guard exists == observed.exists else { return false }
        guard exists else { return true }
        return version == observed.version && w == observed.w && n == observed.n
            && (updateTime == nil || updateTime == observed.updateTime) && (ts == nil || ts == observed.ts)
    }

    var description: String {
        exists
            ? "v\(version) w\(w) n\(n)\(updateTime.map { " at \($0)" } ?? "")\(ts.map { " ts \($0)" } ?? "")"
            : "absent"
    }
}

/// A change the listener must have delivered: a write of `path` to `version`, or its removal from `version`.
struct CrashEvent: Hashable, CustomStringConvertible {
    var path: String
    var version: Int
    var removed: Bool
    var description: String { "\(removed ? "removed" : "written") \(path) v\(version)" }
}

/// An account signed up through the load, with the session tokens it was last given.
struct CrashAccount {
    var email: String
    var password: String
    var idToken: String
    var refreshToken: String
}

/// What one client had sent when the server died and had no answer to: it may or may not have happened, but all of
/// it or none of it.
enum CrashPending {
    /// Writes to documents: each path's state if the operation happened.
    case writes(id: Int, label: String, after: [String: CrashDocument])
    case signUp(email: String, password: String)
    case refresh(account: Int, token: String)
}

/// The figures of a run, printed at its end and quoted in docs/reliability.md.
struct CrashFigures {
    var acknowledgedRequests = 0
    var acknowledgedWrites = 0
    var acknowledgedCommits = 0
    var writesChecked = 0
    var eventsChecked = 0
    var inFlightApplied = 0
    var inFlightNotApplied = 0
    var accountsChecked = 0
    var refreshesChecked = 0
    var indexesBuilt = 0
    var killsDuringIndexBuild = 0
    var databaseKills = 0
    var nodeKills = 0
}
