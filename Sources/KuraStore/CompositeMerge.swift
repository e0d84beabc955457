/// The k-way merge of a `CompositeDisjunction`'s ranges: each range read in its key order, the merged stream is
/// in the query's order, without duplicates, and stops at the limit.
///
/// Entries are compared by their key after the range's pinned prefix (their position in the query's order; see
/// `CompositeDisjunction`), in descending byte order for reversed walks. Each range is read lazily, one entry
/// ahead at most, so a merge that stops at its limit has read the entries it returned, the duplicates it
/// skipped, and at most one more per range. Concatenated ranges are read one after the other, never ahead.
///
/// The merge owns no I/O: the engine passes a `read` function to `next` that returns the next entry of range
/// `i` (its key bytes and whatever row the engine needs), or `nil` when the range is exhausted.
package struct CompositeMerge<Row> {
    /// One index entry as the engine read it.
    package typealias Entry = (key: [UInt8], row: Row)

    private let prefixLengths: [Int]
    private let concatenated: Bool
    private let deduplicates: Bool
    private let reverse: Bool
    private var remaining: Int
    /// The next entry of each range (interleaved merge), once `started`.
    private var heads: [Entry?]
    private var started = false
    /// The range whose head was just taken and must be read again before the next comparison.
    private var refill: Int?
    /// The range being read (concatenated ranges).
    private var current = 0
    /// The position (key after its prefix) of the last entry returned, to skip the same document from another
    /// range.
    private var last: ArraySlice<UInt8>?

    /// A merge of `disjunction`'s ranges returning at most `limit` rows (`nil`: all).
    package init(_ disjunction: CompositeDisjunction, limit: Int?) {
        prefixLengths = disjunction.ranges.map(\.scan.prefix.count)
        concatenated = disjunction.concatenated
        deduplicates = disjunction.deduplicates
        reverse = disjunction.reverse
        remaining = limit ?? .max
        heads = Array(repeating: nil, count: disjunction.ranges.count)
    }

    /// The next row in the query's order, or `nil` at the end (or the limit).
    package mutating func next(read: (Int) throws -> Entry?) rethrows -> Row? {
        while remaining > 0 {
            guard let (range, entry) = try take(read) else {
                remaining = 0
                return nil
            }
            if deduplicates {
                let position = entry.key[min(prefixLengths[range], entry.key.count)...]
                if let last, last.elementsEqual(position) { continue }
                last = position
            }
            remaining -= 1
            return entry.row
        }
        return nil
    }

    /// The first entry in merge order, removed from its range.
    private mutating func take(_ read: (Int) throws -> Entry?) rethrows -> (Int, Entry)? {
        if concatenated {
            while current < prefixLengths.count {
                if let entry = try read(current) { return (current, entry) }
                current += 1
            }
            return nil
        }
        if !started {
            started = true
            for range in heads.indices { heads[range] = try read(range) }
        } else if let range = refill {
            heads[range] = try read(range)
        }
        refill = nil
        var best: Int?
        for range in heads.indices {
            guard let head = heads[range] else { continue }
            if let chosen = best, let other = heads[chosen], !precedes(head.key, range, other.key, chosen) {
                continue
            }
            best = range
        }
        guard let best, let entry = heads[best] else { return nil }
        heads[best] = nil
        refill = best
        return (best, entry)
    }

    /// Whether the entry with `key` from range `range` comes before the one with `otherKey` from `otherRange`.
    private func precedes(_ key: [UInt8], _ range: Int, _ otherKey: [UInt8], _ otherRange: Int) -> Bool {
        let position = key[min(prefixLengths[range], key.count)...]
        let other = otherKey[min(prefixLengths[otherRange], otherKey.count)...]
        return reverse ? other.lexicographicallyPrecedes(position) : position.lexicographicallyPrecedes(other)
    }
}
