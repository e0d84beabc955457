import Foundation
import KuraTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One client of the crash test's load: writes only documents of its own (`items/c<n>-…`), one request at a time,
/// so the newest acknowledged state of each of them is known exactly and at most one request is in doubt at a crash.
/// Its operations: single-document creates, replaces (with `If-Match`) and deletes, commits with `version` and
/// `exists` preconditions and `increment`/`serverTimestamp` transforms, multi-document commits that also bump a
/// counter document, sign-ups and refresh-token rotations.
final class CrashClient: @unchecked Sendable {
    let index: Int
    /// The acknowledged state of every document this client ever wrote.
    var documents: [String: CrashDocument] = [:]
    var accounts: [CrashAccount] = []
    /// The request that had no answer when the server died.
    var pending: CrashPending?
    /// Changes the listener must deliver (acknowledged ones, and in-flight ones found applied).
    var expectedEvents: [CrashEvent] = []
    var figures = CrashFigures()
    /// Answers that should never come (a failed precondition means the test's idea of a document was wrong).
    var failures: [String] = []
    private var random: SplitMix
    private var nextOperation: Int

    init(index: Int, seed: UInt64) {
        self.index = index
        random = SplitMix(state: seed &+ UInt64(index) &* 0x9E37_79B9)
        nextOperation = index * 100_000_000 + 1
    }

    var prefix: String { "items/c\(index)-" }
    var pool: [String] { (0..<8).map { "\(prefix)d\($0)" } }
    var batchPool: [String] { (0..<6).map { "\(prefix)b\($0)" } }
    var counter: String { "\(prefix)counter" }

    private func state(_ path: String) -> CrashDocument { documents[path] ?? .absent }

    /// Sends operations until a request fails (the server or its database died) or `stop` is set.
    func run(port: Int, key: String, stop: Shared<Bool>) {
        guard let connection = try? HTTPConnection(port: port, timeout: .seconds(300)) else { return }
        let admin = [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")]
        while !stop.current {
            let roll = random.below(100)
            let ok: Bool
            if roll < 4 {
                ok = signUp(connection)
            } else if roll < 10, !accounts.isEmpty {
                ok = refresh(connection)
            } else if roll < 40 {
                ok = put(connection, admin)
            } else if roll < 60 {
                ok = transform(connection, admin)
            } else if roll < 85 {
                ok = multiCommit(connection, admin)
            } else {
                ok = delete(connection, admin)
            }
            guard ok else { return }
        }
    }

    private func newOperation() -> Int {
        nextOperation += 1
        return nextOperation
    }

    /// Sends one request; nil when it had no answer or the answer was a server error (then it may have happened).
    private func send(
        _ connection: HTTPConnection, _ method: String, _ target: String, _ headers: [(String, String)],
        _ body: Any?
    ) -> HTTPResponse? {
        guard let response = try? connection.send(method, target, headers: headers, body: body.map(JSON.encode)) else {
            return nil
        }
        if response.status >= 500 { return nil }
        return response
    }

    private func unexpected(_ what: String, _ response: HTTPResponse) -> Bool {
        failures.append("client \(index): \(what) answered \(response.status) \(response.body.prefix(300))")
        pending = nil
        return false
    }

    private func acknowledge(_ path: String, _ document: CrashDocument, previous: CrashDocument) {
        documents[path] = document
        figures.acknowledgedWrites += 1
        expectedEvents.append(
            document.exists
                ? CrashEvent(path: path, version: document.version, removed: false)
                : CrashEvent(path: path, version: previous.version, removed: true))
    }

    /// PUT: a create (`?exists=false`) or a replace at the known version (`If-Match`).
    private func put(_ connection: HTTPConnection, _ admin: [(String, String)]) -> Bool {
        let path = random.pick(pool)
        let old = state(path)
        let w = newOperation()
        let n = old.exists ? old.n : 0
        var after = CrashDocument(exists: true, version: old.exists ? old.version + 1 : 1, w: w, n: n)
        pending = .writes(id: w, label: "PUT \(path)", after: [path: after])
        var headers = admin
        var target = "/api/docs/\(path)"
        if old.exists { headers.append(("If-Match", "\(old.version)")) } else { target += "?exists=false" }
        guard let response = send(connection, "PUT", target, headers, ["data": ["w": w, "n": n]]) else { return false }
        guard response.status == 200, response.json["version"] as? Int == after.version else {
            return unexpected("PUT \(path) over \(old)", response)
        }
        after.updateTime = response.json["updateTime"] as? String
        acknowledge(path, after, previous: old)
        figures.acknowledgedRequests += 1
        pending = nil
        return true
    }

    /// DELETE at the known version; a create when the document is missing.
    private func delete(_ connection: HTTPConnection, _ admin: [(String, String)]) -> Bool {
        guard let path = pool.filter({ state($0).exists }).randomElement(using: &random) else {
            return put(connection, admin)
        }
        let old = state(path)
        let w = newOperation()
        pending = .writes(id: w, label: "DELETE \(path)", after: [path: .absent])
        guard
            let response = send(
                connection, "DELETE", "/api/docs/\(path)", admin + [("If-Match", "\(old.version)")], nil)
        else { return false }
        guard response.status == 204 else { return unexpected("DELETE \(path) at \(old)", response) }
        acknowledge(path, .absent, previous: old)
        figures.acknowledgedRequests += 1
        pending = nil
        return true
    }

    /// The write of a commit that sets `w`, increments `n` and stamps `ts`, with a precondition on `old`.
    private func transformWrite(_ path: String, _ old: CrashDocument, _ w: Int) -> ([String: Any], CrashDocument) {
        let transforms: [[String: Any]] = [["field": "n", "increment": 1], ["field": "ts", "serverTimestamp": true]]
        let after = CrashDocument(exists: true, version: old.exists ? old.version + 1 : 1, w: w, n: old.n + 1)
        if old.exists {
            return (
                [
                    "op": "update", "path": path, "data": ["w": w], "precondition": ["version": old.version],
                    "transforms": transforms,
                ], after
            )
        }
        return (
            [
                "op": "set", "path": path, "data": ["w": w, "n": 0], "precondition": ["exists": false],
                "transforms": transforms,
            ], CrashDocument(exists: true, version: 1, w: w, n: 1)
        )
    }

    /// A one-write commit with transforms.
    private func transform(_ connection: HTTPConnection, _ admin: [(String, String)]) -> Bool {
        let path = random.pick(pool)
        let w = newOperation()
        let (write, after) = transformWrite(path, state(path), w)
        return commit(connection, admin, w, [(path, write, after)], label: "commit \(path)")
    }

    /// A commit of three or four writes: the client's counter (incremented) and two or three batch documents,
    /// each created, replaced at its version, or deleted.
    private func multiCommit(_ connection: HTTPConnection, _ admin: [(String, String)]) -> Bool {
        let w = newOperation()
        var writes = [transformWrite(counter, state(counter), w)].map { (counter, $0.0, $0.1) }
        var paths = batchPool
        paths.shuffle(using: &random)
        for path in paths.prefix(2 + random.below(2)) {
            let old = state(path)
            if !old.exists {
                writes.append(
                    (
                        path, ["op": "create", "path": path, "data": ["w": w, "n": 0]],
                        CrashDocument(exists: true, version: 1, w: w)
                    ))
            } else if random.chance(40) {
                writes.append(
                    (path, ["op": "delete", "path": path, "precondition": ["exists": true]], CrashDocument.absent))
            } else {
                writes.append(
                    (
                        path,
                        [
                            "op": "set", "path": path, "data": ["w": w, "n": old.n],
                            "precondition": ["version": old.version],
                        ], CrashDocument(exists: true, version: old.version + 1, w: w, n: old.n)
                    ))
            }
        }
        return commit(connection, admin, w, writes, label: "commit of \(writes.count) writes")
    }

    private func commit(
        _ connection: HTTPConnection, _ admin: [(String, String)], _ w: Int,
        _ writes: [(path: String, write: [String: Any], after: CrashDocument)], label: String
    ) -> Bool {
        pending = .writes(
            id: w, label: label, after: Dictionary(uniqueKeysWithValues: writes.map { ($0.path, $0.after) }))
        guard let response = send(connection, "POST", "/api/commit", admin, ["writes": writes.map(\.write)]) else {
            return false
        }
        guard response.status == 200, let results = response.json["writeResults"] as? [[String: Any]],
            results.count == writes.count
        else {
            return unexpected("\(label) (\(writes.map { "\($0.path) over \(state($0.path))" }))", response)
        }
        let commitTime = response.json["commitTime"] as? String
        for (write, result) in zip(writes, results) {
            var after = write.after
            if after.exists {
                guard result["version"] as? Int == after.version else {
                    return unexpected("\(label): \(write.path) not at version \(after.version)", response)
                }
                after.updateTime = result["updateTime"] as? String
                if (write.write["transforms"] as? [Any]) != nil { after.ts = commitTime }
            }
            acknowledge(write.path, after, previous: state(write.path))
        }
        figures.acknowledgedRequests += 1
        if writes.count > 1 { figures.acknowledgedCommits += 1 }
        pending = nil
        return true
    }

    private func signUp(_ connection: HTTPConnection) -> Bool {
        let email = "c\(index)-\(newOperation())@crash.test"
        let password = "password-\(random.next() % 1_000_000)"
        pending = .signUp(email: email, password: password)
        guard
            let response = send(
                connection, "POST", "/api/auth/signup", [("Content-Type", "application/json")],
                ["email": email, "password": password])
        else { return false }
        guard response.status == 201, let account = Self.account(response, email: email, password: password) else {
            return unexpected("sign-up \(email)", response)
        }
        accounts.append(account)
        figures.acknowledgedRequests += 1
        pending = nil
        return true
    }

    private func refresh(_ connection: HTTPConnection) -> Bool {
        let chosen = random.below(accounts.count)
        let token = accounts[chosen].refreshToken
        pending = .refresh(account: chosen, token: token)
        guard
            let response = send(
                connection, "POST", "/api/auth/refresh", [("Content-Type", "application/json")],
                ["refreshToken": token])
        else { return false }
        guard response.status == 200, let idToken = response.json["idToken"] as? String,
            let refreshToken = response.json["refreshToken"] as? String
        else { return unexpected("refresh for \(accounts[chosen].email)", response) }
        accounts[chosen].idToken = idToken
        accounts[chosen].refreshToken = refreshToken
        figures.acknowledgedRequests += 1
        pending = nil
        return true
    }

    /// The session of a sign-up or sign-in answer.
    static func account(_ response: HTTPResponse, email: String, password: String) -> CrashAccount? {
        guard let idToken = response.json["idToken"] as? String,
            let refreshToken = response.json["refreshToken"] as? String
        else { return nil }
        return CrashAccount(email: email, password: password, idToken: idToken, refreshToken: refreshToken)
    }
}
