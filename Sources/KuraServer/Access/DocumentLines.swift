import KuraModel
import Synchronization

/// One line per document for this node's rule-checked writes, so that two of them never race on one document.
///
/// A rule-checked write reads the documents it touches, asks the rules, and commits with preconditions pinning
/// what the rules saw (`DataAccess.authorize`). Two such writes to one document at once would both read the same
/// version and one would fail its pin. Holding the document's line from the read to the commit's answer puts them
/// one after the other instead; a write finds its line free unless another write to that document is in flight, so
/// writes to different documents never wait. A commit holds the lines of all its documents, taken in path order so
/// that two commits never wait for each other.
final class DocumentLines: Sendable {
    /// The documents whose line is held, each with the commits waiting for it in arrival order.
    private let lines = Mutex<[DocumentPath: [@Sendable () -> Void]]>([:])

    /// The lines one commit holds: its documents, each once, in path order (the order they are taken and given
    /// back in, worked out once when the commit enters).
    struct Held: Sendable {
        fileprivate let paths: [DocumentPath]
    }

    /// Takes the lines of `paths` and then calls `held(lines, waited)`: at once on this thread (`waited` false)
    /// when every line was free, else on the thread that gives the last of them back (`waited` true; hand work off
    /// from there). `lines` goes back to `leave` once the commit is answered.
    func enter(_ paths: [DocumentPath], _ held: @escaping @Sendable (_ lines: Held, _ waited: Bool) -> Void) {
        let lines = Held(paths: Array(Set(paths)).sorted())
        take(lines.paths[...], waited: false) { waited in held(lines, waited) }
    }

    /// Gives the lines back, each to the next commit waiting for it.
    func leave(_ held: Held) {
        for path in held.paths {
            let next = lines.withLock { lines -> (@Sendable () -> Void)? in
                guard var waiting = lines[path], !waiting.isEmpty else {
                    lines[path] = nil
                    return nil
                }
                let next = waiting.removeFirst()
                lines[path] = waiting
                return next
            }
            next?()
        }
    }

    /// The number of documents whose line is held (for tests: 0 once every write has been answered).
    var held: Int { lines.withLock { $0.count } }

    private func take(
        _ paths: ArraySlice<DocumentPath>, waited: Bool, _ held: @escaping @Sendable (_ waited: Bool) -> Void
    ) {
        var rest = paths
        while let path = rest.first {
            rest = rest.dropFirst()
            let remaining = rest
            let free = lines.withLock { lines -> Bool in
                guard lines[path] != nil else {
                    lines[path] = []
                    return true
                }
                lines[path]!.append { [self] in take(remaining, waited: true, held) }
                return false
            }
            guard free else { return }
        }
        held(waited)
    }
}
