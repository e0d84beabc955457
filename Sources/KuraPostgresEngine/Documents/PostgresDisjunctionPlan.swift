import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// A query answered from one composite index range per value of its `in` or `array-contains-any` filter
/// (`CompositeDisjunction`), as the SQLite engine's `SQLiteDisjunctionPlan` does: one statement per range, each
/// walking its range in key order and stopping at the limit, all run in one read-only REPEATABLE READ transaction
/// (one snapshot, so the ranges agree), then merged in the query's order (`CompositeMerge`).
///
/// libpq returns a statement's rows whole, so a range's statement reads up to the limit even when the merge takes
/// fewer of its rows; `explain` counts what the merge read (as SQLite's lazy walk does) and lists, per range, the
/// rows fetched and the rows the merge took.
struct PostgresDisjunctionPlan {
    /// The ranges and how they merge.
    let disjunction: CompositeDisjunction
    /// One composite plan per range (`PostgresQueryPlan(_:composite:)`), in `disjunction.ranges` order.
    let ranges: [PostgresQueryPlan]
    /// Most documents returned.
    let limit: Int?

    /// Column of `x.key` in a range's `sql`.
    private static let keyColumn = 6

    /// What the merge read: the rows of each range's statement, the merged rows, and how far it read each range.
    struct Merged {
        /// Each range's rows (the columns of `PostgresQueryPlan.sql`, or only the key).
        let results: [PostgresResult]
        /// The merged rows in the query's order: (range, row within its result).
        let rows: [(range: Int, row: Int)]
        /// Rows of each range the merge took (returned, skipped as repeats, or held as its next candidate).
        let taken: [Int]
        /// Whether the merge asked a range for a row past its last one.
        let ended: [Bool]
    }

    /// The statements for `disjunction`'s ranges.
    init(_ query: NormalizedQuery, _ disjunction: CompositeDisjunction) throws {
        self.disjunction = disjunction
        limit = query.limit
        ranges = try disjunction.ranges.map { try PostgresQueryPlan($0.query, composite: $0.scan) }
    }

    /// What drives the scan, for `explain`.
    var driverDescription: String { CompositePlan.ranges(disjunction).description }

    /// The first range's statement, for `EXPLAIN` (every range has the same plan).
    var representative: PostgresQueryPlan? { ranges.first }

    /// Runs `body` in a read-only REPEATABLE READ transaction: every statement it runs sees one snapshot. A
    /// read-only transaction never fails to serialize, so nothing is retried.
    static func onOneSnapshot<Result>(
        _ connection: PostgresConnection, _ body: (PostgresConnection) throws -> Result
    ) throws -> Result {
        try connection.transaction(isolation: "REPEATABLE READ READ ONLY", body)
    }

    /// Reads every range (the full rows, or only the key with `keysOnly`) and merges them. Call inside
    /// `onOneSnapshot`.
    func read(_ connection: PostgresConnection, keysOnly: Bool = false) throws -> Merged {
        let results = try ranges.map { range in
            try connection.query(keysOnly ? range.keySQL : range.sql, range.bindings, resultFormat: .binary)
        }
        let keyColumn = keysOnly ? 0 : Self.keyColumn
        var taken = Array(repeating: 0, count: results.count)
        var ended = Array(repeating: false, count: results.count)
        var merge = CompositeMerge<(range: Int, row: Int)>(disjunction, limit: limit)
        var rows: [(range: Int, row: Int)] = []
        while let row = merge.next(read: { range -> CompositeMerge<(range: Int, row: Int)>.Entry? in
            let row = taken[range]
            guard row < results[range].rowCount else {
                ended[range] = true
                return nil
            }
            taken[range] += 1
            return (results[range].bytes(row, keyColumn) ?? [], (range, row))
        }) {
            rows.append(row)
        }
        return Merged(results: results, rows: rows, taken: taken, ended: ended)
    }

    /// The number of documents matched (within the cursors and limit). The ranges of an `in` filter are
    /// disjoint (a field holds one value), so their counts add up; those of `array-contains-any` are merged by
    /// key to count each document once. Call inside `onOneSnapshot`.
    func count(_ connection: PostgresConnection) throws -> Int64 {
        guard disjunction.deduplicates else {
            var total: Int64 = 0
            for range in ranges {
                total += try connection.query(range.countSQL, range.bindings, resultFormat: .binary).int(0, 0) ?? 0
            }
            return limit.map { min(total, Int64($0)) } ?? total
        }
        return Int64(try read(connection, keysOnly: true).rows.count)
    }

    /// Index entries the merge examined: in each range, those up to the last row it took (every entry of a
    /// range it read to the end, including those the per-entry filters rejected; none of a range it never
    /// reached). Call inside `onOneSnapshot`, after `read`.
    func examined(_ merged: Merged, _ connection: PostgresConnection) throws -> Int64 {
        var total: Int64 = 0
        for (position, range) in ranges.enumerated() {
            let result = merged.results[position]
            let last: PostgresValue?
            if merged.ended[position] && limit.map({ result.rowCount < $0 }) ?? true {
                last = nil  // the statement walked its whole range
            } else if merged.taken[position] > 0 {
                last = result.bytes(merged.taken[position] - 1, Self.keyColumn).map(PostgresValue.bytes)
            } else {
                continue
            }
            let (sql, bindings) = range.examinedSQL(last: last, cap: .max)
            total += try connection.query(sql, bindings, resultFormat: .binary).int(0, 0) ?? 0
        }
        return total
    }

    /// One line per range for `explain`: the rows its statement fetched and those the merge took.
    func rangeLines(_ merged: Merged) -> [String] {
        disjunction.ranges.indices.map { position in
            "range \(position): fetched \(merged.results[position].rowCount) rows, merge took "
                + "\(merged.taken[position])"
        }
    }
}
