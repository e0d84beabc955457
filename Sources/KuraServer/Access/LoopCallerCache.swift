import KuraAuth
import KuraCore
import KuraModel

/// One per event loop (`LoopLocal`): the `Authorization` header values of users recently seen on the loop, with
/// their `Caller`. A repeated ID token then costs a lookup in loop-local memory instead of a parse of the header
/// and a trip through the shared token cache (a lock, and reference counts touched from every loop).
///
/// An entry holds as long as the token cache's answer it came from: until the token expires or is due for its
/// periodic re-check (`validity`), and only while no revocation has happened in the process since
/// (`AuthService.revocationEpoch`). Only users admitted to data (`CallerPolicy.admit`: verified when
/// `auth.requireVerifiedEmail` is on) are inserted, so an entry needs no second check. Only users are kept: the
/// admin key is checked as fast without a cache, and anonymous callers have no header. Owned by
/// `CallerResolution`.
struct LoopCallerCache {
    /// Most header values kept per loop (`auth.callersPerLoop`); when full, the cache starts over (cheap, and
    /// rare).
    let capacity: Int
    /// Bytes of the header's tail used as the hash key (inside the token's signature).
    static let keyLength = 32

    /// A class, so that a lookup hands out one reference instead of copying the caller's fields.
    final class Entry {
        let header: String
        let caller: Caller
        let validity: CachedVerification.Validity
        let epoch: UInt64

        init(header: String, caller: Caller, validity: CachedVerification.Validity, epoch: UInt64) {
            self.header = header
            self.caller = caller
            self.validity = validity
            self.epoch = epoch
        }
    }

    private var entries: [Substring: Entry] = [:]

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The entry for the `Authorization` value `header`, if any; the caller checks `validity` and `epoch`.
    func entry(header: String) -> Entry? {
        guard let entry = entries[header.utf8Tail(Self.keyLength)], entry.header.bytesEqual(header) else { return nil }
        return entry
    }

    /// Remembers that `header` names the user of `verification`.
    mutating func insert(header: String, verification: CachedVerification) {
        let key = header.utf8Tail(Self.keyLength)
        if entries[key] == nil, entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = Entry(
            header: header, caller: .user(verification.claims.unshared), validity: verification.validity,
            epoch: verification.epoch)
    }
}
