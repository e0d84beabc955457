import KuraCore
import KuraModel
import KuraStore

/// A target prepared on the worker pool, waiting for the change feed to make it live.
final class Registration: @unchecked Sendable {
    // `@unchecked`: made on a worker, handed to the change feed through the registry's inbox (a lock orders the
    // hand-over), and touched by the feed alone after that.
    /// What the client is sent when the target goes live.
    enum Mode {
        /// Its documents (after `reset` with this reason, when a resume was asked for but cannot be honoured).
        case snapshot(reset: String?)
        /// The changes since the client's position (`replay`).
        case resume
    }

    let state: TargetState
    var mode: Mode
    var replay: [ListenChange]

    init(state: TargetState, mode: Mode, replay: [ListenChange]) {
        self.state = state
        self.mode = mode
        self.replay = replay
    }

    /// The replay grew too long to be worth sending: send the documents instead.
    func abandonReplay(_ limit: Int) {
        guard case .resume = mode, replay.count > limit else { return }
        mode = .snapshot(reset: "more than \(limit) changes to replay")
        replay = []
    }
}

extension ListenerRegistry {
    /// Prepares a target on the worker pool: checks the rules, reads its documents exactly at a known sequence
    /// (the client's position when resuming), brings them up to the latest change, and hands them to the feed.
    func prepare(
        _ target: ListenTarget, _ connection: ListenConnection, _ generation: UInt64, _ resumeAfter: StreamPosition?
    ) {
        guard connection.isCurrent(target.id, generation), !connection.isClosing else { return }
        do {
            let registration = try prepared(target, connection, generation, resumeAfter)
            post(.register(registration))
        } catch {
            if let error = APIError(answering: error) {
                return post(.failed(connection, targetID: target.id, generation: generation, error))
            }
            logger.error("preparing listener \(target.id) of stream \(connection.id) failed: \(error)")
            let failure = APIError.unavailable("the listener could not be prepared; add it again")
            post(.failed(connection, targetID: target.id, generation: generation, failure))
        }
    }

    private func prepared(
        _ target: ListenTarget, _ connection: ListenConnection, _ generation: UInt64, _ resumeAfter: StreamPosition?
    ) throws -> Registration {
        let principal = connection.principal
        if !principal.bypassesRules, case .query(let query, _) = target.kind,
            case .collection(let collection) =
                query.source, access.listDecision(principal, collection: collection) == false
        {
            throw APIError.permissionDenied("the security rules do not allow 'list' on \(collection)")
        }
        let state = TargetState(
            key: nextTargetKey(), target: target, connection: connection, generation: generation, access: access,
            view: TargetView(target: target, documents: [], complete: true), sequence: 0)
        // A document target's permission is decided on the document as read, so it is read unfiltered.
        let readable: (Document) -> Bool
        if case .document = target.kind { readable = { _ in true } } else { readable = state.readable }
        var mode = Registration.Mode.snapshot(reset: nil)
        var snapshot: TargetReader.Snapshot
        if let resumeAfter {
            let position = resumeAfter.sequence(for: target.id)
            do {
                snapshot = try reader.read(target, at: position, readable: readable)
                mode = .resume
            } catch TargetReader.Failure.logTooShort {
                mode = .snapshot(reset: "the change log no longer reaches back to \(position)")
                snapshot = try reader.read(target, at: nil, readable: readable)
            } catch TargetReader.Failure.ahead {
                mode = .snapshot(reset: "position \(position) is ahead of the change log")
                snapshot = try reader.read(target, at: nil, readable: readable)
            }
        } else {
            snapshot = try reader.read(target, at: nil, readable: readable)
        }
        if case .document(let path) = target.kind, !principal.bypassesRules,
            !access.mayRead(principal, path: path, document: snapshot.documents.first, listing: false)
        {
            throw APIError.permissionDenied("the security rules do not allow 'get' on \(path)")
        }
        state.view = TargetView(target: target, documents: snapshot.documents, complete: snapshot.complete)
        state.sequence = snapshot.sequence
        let registration = Registration(state: state, mode: mode, replay: [])
        // Catch up here, off the feed's thread, so that it only has the last few changes to apply.
        var cursor = state.sequence
        while true {
            let page = try changePage(after: cursor)
            guard let last = page.last else { break }
            for change in page {
                let changes = try state.apply(change, reader: reader)
                if case .resume = registration.mode { registration.replay += changes }
            }
            registration.abandonReplay(configuration.maxReplayChanges)
            cursor = last.sequence
            if page.count < Self.pageSize { break }
        }
        return registration
    }

    /// Change-log entries read at a time.
    static let pageSize = 500

    /// The entries after `sequence`; throws `logTooShort` when the log skips past it (pruned).
    func changePage(after sequence: Int64) throws -> [Change] {
        let page = try store.changes(after: sequence, limit: Self.pageSize)
        if let first = page.first, first.sequence > sequence + 1, try store.oldestRetainedSequence() > sequence + 1 {
            throw TargetReader.Failure.logTooShort
        }
        return page
    }
}
