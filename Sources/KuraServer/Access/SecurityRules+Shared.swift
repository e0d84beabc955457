import Foundation
import KuraCore
import KuraEngine
import KuraModel
import KuraRules
import KuraStore

/// The rules with several nodes on one database (`SharedNodeState`): the database holds every published version
/// and the newest is in force on every node; `<data>/kura.rules` is how an operator publishes. Each node keeps
/// the file equal to the version in force (rewriting it when another node publishes) and remembers that version in
/// `<data>/kura.rules.version`, so that it can tell, when it starts, an edit made while it was down (published)
/// from a file that merely fell behind (replaced by the newest version).
///
/// Publishing — the file edited on any node, or `POST /api/admin/rules` on any node — writes a new version once
/// (the same text as the newest version is no new version, so several nodes given the same file make one), puts it
/// in force here, and tells the other nodes, which switch at once; each also polls the version every
/// `cluster.pollMilliseconds` in case a notification is lost.
extension SecurityRules {
    /// `<data>/kura.rules.version`: the shared version the file was last made equal to.
    static func markerPath(_ path: String) -> String { path + ".version" }

    /// Calls `observer` with the version of every publication made on this node. Register at start-up.
    func observePublications(_ observer: @escaping @Sendable (Int64) -> Void) {
        publications.withLock { $0.append(observer) }
    }

    /// The shared version in force (0 when the rules are not shared).
    public var sharedVersion: Int64 { state.withLock { $0.sharedVersion } }

    /// What a starting node puts in force: the newest shared version, unless its file was edited since it last
    /// followed the shared rules (then the file is published first), or no version exists yet (then the file, or
    /// the defaults in a new database, become version 1). A file that does not compile stops the start, as with
    /// one node.
    static func startShared(
        path: String, newDataDirectory: Bool, shared: any SharedNodeState, logger: Logger
    ) throws -> (LoadedRules, Int64, published: Bool) {
        let fileSource = FileManager.default.fileExists(atPath: path) ? try read(path) : nil
        let marker = (try? String(contentsOfFile: markerPath(path), encoding: .utf8)).flatMap {
            Int64($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let chosen: SharedRules
        var published = false
        do {
            if let latest = try shared.latestRules() {
                let edited =
                    try fileSource.map { source in
                        guard let marker else { return false }
                        return try shared.rules(version: marker)?.source.utf8.elementsEqual(source.utf8) != true
                    } ?? false
                if edited, let fileSource {
                    _ = try compile(fileSource, fileName: path)
                    (chosen, published) = try shared.publishRules(fileSource)
                    logger.info(
                        "\(path) was edited while this node was down: published it as version \(chosen.version)")
                } else {
                    if marker == nil, let fileSource, !fileSource.utf8.elementsEqual(latest.source.utf8) {
                        let aside = path + ".replaced-" + String(WallClock.nowMicros() / 1_000_000)
                        try? fileSource.write(toFile: aside, atomically: true, encoding: .utf8)
                        logger.warn(
                            "\(path) differs from the rules in force on the other nodes (version \(latest.version)); "
                                + "it is replaced by them and kept as \(aside). Edit \(path) to publish new rules")
                    }
                    chosen = latest
                }
            } else {
                guard let source = fileSource ?? (newDataDirectory ? RuleSet.defaultSource : nil) else {
                    throw ConfigurationError(
                        "\(path) is missing, the database holds data and no published rules: restore the file "
                            + "(the defaults are in docs/examples/default.rules)")
                }
                _ = try compile(source, fileName: path)
                (chosen, published) = try shared.publishRules(source)
                logger.info("published the security rules of \(path) as version \(chosen.version)")
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("cannot read the shared security rules: \(error)")
        }
        let loaded = try compile(chosen.source, fileName: fileName, version: chosen.version)
        try follow(chosen, path: path, fileSource: fileSource)
        return (loaded, chosen.version, published)
    }

    /// The version this node published while it started, once (the other nodes are told when it starts serving).
    func takeStartPublication() -> Int64? {
        state.withLock { state in
            defer { state.publishedAtStart = nil }
            return state.publishedAtStart
        }
    }

    /// `<data>/kura.rules` made equal to `rules` (unless it is already) and the marker set to its version.
    static func follow(_ rules: SharedRules, path: String, fileSource: String?) throws {
        if fileSource.map({ !$0.utf8.elementsEqual(rules.source.utf8) }) ?? true {
            try writeAtomically(rules.source, to: path)
        }
        try writeAtomically("\(rules.version)\n", to: markerPath(path))
    }

    private static func compile(_ source: String, fileName: String, version: Int64? = nil) throws -> LoadedRules {
        do {
            return LoadedRules(source: source, ruleSet: try RuleSet.compile(source: source, fileName: fileName))
        } catch {
            let origin = version.map { " (the shared rules, version \($0), do not compile with this build)" } ?? ""
            throw ConfigurationError(error.description + origin)
        }
    }

    /// The file changed and compiles (called by `reloadIfChanged` with `updates` held): publishes it. A failure
    /// to publish leaves the rules in force and tries again at the next poll.
    func publishEditedFile(_ loaded: LoadedRules, signature: FileSignature?) {
        guard let shared, !state.withLock({ $0.current.source.utf8.elementsEqual(loaded.source.utf8) }) else { return }
        do {
            let (rules, isNew) = try shared.publishRules(loaded.source)
            try? Self.writeAtomically("\(rules.version)\n", to: Self.markerPath(path))
            state.withLock { state in
                install(loaded, in: &state)
                state.sharedVersion = rules.version
            }
            logger.info("published the security rules of \(path) as version \(rules.version)")
            if isNew { announce(rules.version) }
        } catch {
            state.withLock { $0.signature = nil }
            logger.error("could not publish \(path): \(error); the security rules in force stay")
        }
    }

    /// `POST /api/admin/rules` with shared rules: publishes, puts in force, follows in the file, tells the others.
    func publish(_ loaded: LoadedRules) throws -> LoadedRules {
        guard let shared else { return loaded }
        try updates.withLock { _ in
            let (rules, isNew): (SharedRules, Bool)
            do { (rules, isNew) = try shared.publishRules(loaded.source) } catch {
                throw APIError.unavailable("the rules could not be published to the database")
            }
            try? Self.follow(rules, path: path, fileSource: nil)
            let signature = FileSignature(path: path)
            state.withLock { state in
                install(loaded, in: &state)
                state.signature = signature
                state.sharedVersion = rules.version
            }
            logger.info("security rules published through the API as version \(rules.version)")
            if isNew { announce(rules.version) }
        }
        return loaded
    }

    /// Puts the newest shared version in force if it is not already (another node published; notified or polled)
    /// and makes the file follow. A version that does not compile with this build is reported once and skipped.
    public func syncShared() {
        guard let shared else { return }
        updates.withLock { _ in
            let (inForce, refused) = state.withLock { ($0.sharedVersion, $0.refusedSharedVersion) }
            let latest: SharedRules
            do {
                let version = try shared.latestRulesVersion()
                guard version != inForce, version != refused, version > 0,
                    let rules = try shared.rules(version: version)
                else { return readWorks() }
                latest = rules
            } catch {
                let first = state.withLock { state in
                    defer { state.sharedReadFailing = true }
                    return !state.sharedReadFailing
                }
                if first { logger.error("cannot read the shared security rules: \(error); the rules in force stay") }
                return
            }
            readWorks()
            let loaded: LoadedRules
            do {
                loaded = LoadedRules(
                    source: latest.source, ruleSet: try RuleSet.compile(source: latest.source, fileName: Self.fileName))
            } catch {
                state.withLock { $0.refusedSharedVersion = latest.version }
                return logger.error(
                    "the shared security rules version \(latest.version) do not compile with this build: \(error); "
                        + "the rules in force stay")
            }
            do { try Self.follow(latest, path: path, fileSource: try? Self.read(path)) } catch {
                logger.warn("could not write \(path) with the shared rules: \(error)")
            }
            let signature = FileSignature(path: path)
            state.withLock { state in
                install(loaded, in: &state)
                state.signature = signature
                state.sharedVersion = latest.version
            }
            logger.info("put the shared security rules version \(latest.version) in force")
        }
    }

    private func readWorks() {
        state.withLock { $0.sharedReadFailing = false }
    }

    private func announce(_ version: Int64) {
        for observer in publications.withLock({ $0 }) { observer(version) }
    }
}
