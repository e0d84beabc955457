/// What an SSE event id says: how far every listener on the stream has been delivered, so that a reconnect with
/// `Last-Event-ID` resumes each one exactly.
///
/// Usually the id is one change-log sequence `S`: every listener that had its first event has been sent every
/// change up to `S`. One batch of changes for several listeners of a stream is sent as one event per listener, in
/// the byte order of their target ids; while such a batch is under way, the id is `B~S~T`: listeners whose target
/// id sorts at or before `T` are at `S`, the others still at `B`. A client that loses the connection mid-batch thus
/// gets neither a change twice nor one missing. Target ids cannot contain `~` (see `ListenTarget.validate`).
public struct StreamPosition: Sendable, Equatable, CustomStringConvertible {
    /// Where every listener is at least.
    public var base: Int64
    /// Listeners with target ids up to `through` (byte order) are at `sequence` already.
    public var ahead: Ahead?

    /// The part of a batch already sent.
    public struct Ahead: Sendable, Equatable {
        public var sequence: Int64
        public var through: String
    }

    /// A plain position.
    public init(_ sequence: Int64) {
        base = sequence
        ahead = nil
    }

    /// A position in the middle of a batch going from `base` to `sequence`.
    public init(base: Int64, sequence: Int64, through: String) {
        self.base = base
        ahead = Ahead(sequence: sequence, through: through)
    }

    /// Parses an event id (`S` or `B~S~T`); `nil` when it is not one Kura sent.
    public init?(_ text: String) {
        let parts = text.split(separator: "~", omittingEmptySubsequences: false)
        guard let base = parts.first.flatMap({ Int64($0) }), base >= 0 else { return nil }
        self.base = base
        switch parts.count {
        case 1: ahead = nil
        case 3:
            guard let sequence = Int64(parts[1]), sequence >= base else { return nil }
            let through = String(parts[2])
            guard (try? ListenTarget.validate(through)) != nil else { return nil }
            ahead = Ahead(sequence: sequence, through: through)
        default: return nil
        }
    }

    /// The event id text.
    public var description: String {
        guard let ahead else { return String(base) }
        return "\(base)~\(ahead.sequence)~\(ahead.through)"
    }

    /// The sequence the listener `targetID` had been delivered up to.
    public func sequence(for targetID: String) -> Int64 {
        guard let ahead else { return base }
        return Self.precedesOrEqual(targetID, ahead.through) ? ahead.sequence : base
    }

    /// Byte order of target ids, the order a batch's events go out in.
    static func precedesOrEqual(_ lhs: String, _ rhs: String) -> Bool {
        lhs == rhs || lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
