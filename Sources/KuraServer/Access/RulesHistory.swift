import Foundation
import KuraCore
import KuraModel
import Synchronization

/// The rules versions published through `POST /api/admin/rules`, kept in `<data>/rules-history/` (one file per
/// version, named by its publication time in microseconds), newest `keep` only, so that the console can show them
/// and put an older one back in force. The rules in force before the first publication through the API are kept
/// too, so that it can be rolled back.
final class RulesHistory: Sendable {
    /// `<data>/rules-history`.
    let directory: String
    /// Versions kept (`rules.keepVersions`); 0 keeps none.
    let keep: Int
    private let lock = Mutex(())

    init(dataDirectory: String, keep: Int) {
        directory = (dataDirectory as NSString).appendingPathComponent("rules-history")
        self.keep = keep
    }

    /// One stored version.
    struct Version {
        /// The file name without `.rules`: the publication time in microseconds since 1970.
        var id: String
        var micros: Int64
        var bytes: Int
    }

    /// Records `published`, after `previous` when the history is still empty, and drops the oldest past `keep`.
    func record(previous: String, published: String) throws {
        guard keep > 0 else { return }
        try lock.withLock { _ in
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var now = WallClock.nowMicros()
            if try versions().isEmpty {
                try write(previous, micros: now - 1)
            }
            // Two publications in one microsecond keep their order.
            if let newest = try versions().first, newest.micros >= now { now = newest.micros + 1 }
            try write(published, micros: now)
            for old in try versions().dropFirst(keep) {
                try? FileManager.default.removeItem(atPath: path(old.id))
            }
        }
    }

    /// The stored versions, newest first.
    func versions() throws -> [Version] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> Version? in
            guard name.hasSuffix(".rules"), let micros = Int64(name.dropLast(6)) else { return nil }
            let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name))?[.size] as? NSNumber
            return Version(id: String(micros), micros: micros, bytes: size?.intValue ?? 0)
        }.sorted { $0.micros > $1.micros }
    }

    /// The source of version `id`; 404 `NOT_FOUND` when there is none.
    func source(_ id: String) throws -> String {
        guard Int64(id) != nil, let text = try? String(contentsOfFile: path(id), encoding: .utf8) else {
            throw APIError.notFound("no rules version \(id)")
        }
        return text
    }

    private func path(_ id: String) -> String { directory + "/" + id + ".rules" }

    private func write(_ source: String, micros: Int64) throws {
        try SecurityRules.writeAtomically(source, to: path(String(micros)))
    }
}
