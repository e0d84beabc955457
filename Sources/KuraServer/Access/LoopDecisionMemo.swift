import KuraAuth
import KuraCore
import KuraModel
import KuraRules

/// One per event loop (`LoopLocal`): `get` decisions that allowed a user a document, when the rules make that
/// decision a function of the caller and the path alone (`RuleSet.decisionDependsOnlyOnCallerAndPath`: no
/// `resource`, `request.time`, `get()`/`exists()`…). A user reading the same documents again (an app refreshing a
/// screen) then skips the rules evaluation.
///
/// An entry counts only for the same claims (the same token's), under the same rules (`SecurityRules.version`) and
/// while no revocation has happened since (`AuthService.revocationEpoch`); the caller's token itself is checked
/// before, on every request. Denials are not kept: they are rare, and their log line needs the evaluation.
struct LoopDecisionMemo {
    /// Most decisions kept per loop (`rules.rememberedReadsPerLoop`); when full, the memo starts over.
    let capacity: Int

    /// By bytes (docs/api.md, "Identity"): `String` keys let a decision for `groups/が/…` answer for
    /// `groups/か\u{3099}/…`.
    private struct Key: Hashable {
        let uid: String
        let path: String

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.uid.bytesEqual(rhs.uid) && lhs.path.bytesEqual(rhs.path) }

        func hash(into hasher: inout Hasher) {
            uid.hashBytes(into: &hasher)
            path.hashBytes(into: &hasher)
        }
    }

    private struct Entry {
        let claims: AuthClaims
        let rulesVersion: UInt64
        let epoch: UInt64
    }

    private var entries: [Key: Entry] = [:]

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Whether `claims` were allowed `get` on `path` under rules `rulesVersion` with no revocation since `epoch`.
    func allowsGet(_ claims: AuthClaims, path: String, rulesVersion: UInt64, epoch: UInt64) -> Bool {
        guard let entry = entries[Key(uid: claims.uid, path: path)] else { return false }
        return entry.rulesVersion == rulesVersion && entry.epoch == epoch && entry.claims == claims
    }

    /// Remembers an allowed `get`.
    mutating func rememberGet(_ claims: AuthClaims, path: String, rulesVersion: UInt64, epoch: UInt64) {
        let key = Key(uid: claims.uid, path: path)
        if entries[key] == nil, entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = Entry(claims: claims, rulesVersion: rulesVersion, epoch: epoch)
    }
}
