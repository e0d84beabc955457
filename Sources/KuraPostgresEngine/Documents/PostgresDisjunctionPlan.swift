import KuraCore
import KuraModel
import KuraPostgres
import KuraStore

/// A query answered from one composite index range per value of its `in` or `array-contains-any` filter
/// (`CompositeDisjunction`), as the SQLite engine's `SQLiteDisjunctionPlan` does: one branch per range, each
/// walking its range in key order and stopping at the limit, all in one `UNION ALL` statement (one round trip and
/// one snapshot, so the ranges agree), then merged in the query's order (`CompositeMerge`).
///
/// libpq returns a statement's rows whole, so a range's branch reads up to the limit even when the merge takes
/// fewer of its rows; `explain` counts what the merge read (as SQLite's lazy walk does) and lists, per range, the
/// rows fetched and the rows the merge took.
struct PostgresDisjunctionPlan: MergePlan {
    /// The ranges and how they merge.
    let disjunction: CompositeDisjunction
    /// One composite plan per range (`PostgresQueryPlan(_:composite:)`), in `disjunction.ranges` order.
    let ranges: [PostgresQueryPlan]
    /// Most documents returned.
    let limit: Int?

    /// Column of `x.key` in a range's `sql`.
    private static let keyColumn = 6

    /// What the merge read: every range's rows (one result), the merged rows, and how far it read each range.
    struct Merged {
        /// The rows of every range (the columns of `PostgresQueryPlan.sql`, or only the key, then the range).
        let result: PostgresResult
        /// Each range's rows in `result`, in the range's order.
        let rangeRows: [[Int]]
        /// The merged rows in the query's order: (range, row of `result`).
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

    /// Runs `body` in a read-only REPEATABLE READ transaction: every statement it runs sees one snapshot (for
    /// `explain`, which counts what each range examined after reading them). A read-only transaction never fails
    /// to serialize, so nothing is retried.
    static func onOneSnapshot<Result>(
        _ connection: PostgresConnection, _ body: (PostgresConnection) throws -> Result
    ) throws -> Result {
        try connection.transaction(isolation: "REPEATABLE READ READ ONLY", body)
    }

    /// One statement reading every range: each range's statement (its parameters renumbered) as one branch of a
    /// `UNION ALL`, its rows tagged with the range's position as a last column. One statement is one round trip
    /// and one snapshot, so the ranges agree without a transaction.
    private func unionSQL(keysOnly: Bool) -> (String, [PostgresValue]) {
        var branches: [String] = []
        var bindings: [PostgresValue] = []
        for (position, range) in ranges.enumerated() {
            let sql = Self.renumbered(keysOnly ? range.keySQL : range.sql, by: bindings.count)
            branches.append("SELECT q.*, \(position)::int8 FROM (\(sql)) AS q")
            bindings += range.bindings
        }
        return (branches.joined(separator: " UNION ALL "), bindings)
    }

    /// `sql` with each parameter `$n` as `$(n + offset)`.
    static func renumbered(_ sql: String, by offset: Int) -> String {
        guard offset > 0 else { return sql }
        var out = ""
        var digits = ""
        var inParameter = false
        for character in sql {
            if inParameter, character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            if inParameter {
                out += String((Int(digits) ?? 0) + offset)
                digits = ""
                inParameter = false
            }
            if character == "$" {
                out.append(character)
                inParameter = true
            } else {
                out.append(character)
            }
        }
        if inParameter { out += String((Int(digits) ?? 0) + offset) }
        return out
    }

    /// Reads every range (the full rows, or only the key with `keysOnly`) in one statement and merges them.
    func read(_ connection: PostgresConnection, keysOnly: Bool = false) throws -> Merged {
        let (sql, bindings) = unionSQL(keysOnly: keysOnly)
        let prepared = ranges.allSatisfy(\.prefersPrepared)
        let result = try connection.query(sql, bindings, resultFormat: .binary, prepared: prepared)
        let keyColumn = keysOnly ? 0 : Self.keyColumn
        let rangeColumn = keysOnly ? 1 : Self.keyColumn + 1
        var rangeRows = Array(repeating: [Int](), count: ranges.count)
        for row in 0..<result.rowCount {
            let range = Int(try result.int(row, rangeColumn) ?? 0)
            if rangeRows.indices.contains(range) { rangeRows[range].append(row) }
        }
        var taken = Array(repeating: 0, count: ranges.count)
        var ended = Array(repeating: false, count: ranges.count)
        var merge = CompositeMerge<(range: Int, row: Int)>(disjunction, limit: limit)
        var rows: [(range: Int, row: Int)] = []
        while let row = merge.next(read: { range -> CompositeMerge<(range: Int, row: Int)>.Entry? in
            guard taken[range] < rangeRows[range].count else {
                ended[range] = true
                return nil
            }
            let row = rangeRows[range][taken[range]]
            taken[range] += 1
            return (result.bytes(row, keyColumn) ?? [], (range, row))
        }) {
            rows.append(row)
        }
        return Merged(result: result, rangeRows: rangeRows, rows: rows, taken: taken, ended: ended)
    }

    /// The number of documents matched (within the cursors and limit), in one statement. The ranges of an `in`
    /// filter are disjoint (a field holds one value), so their counts add up; those of `array-contains-any` are
    /// merged by key to count each document once.
    func count(_ connection: PostgresConnection) throws -> Int64 {
        guard disjunction.deduplicates else {
            var terms: [String] = []
            var bindings: [PostgresValue] = []
            for range in ranges {
                terms.append("(\(Self.renumbered(range.countSQL, by: bindings.count)))")
                bindings += range.bindings
            }
            let total =
                try connection.query("SELECT " + terms.joined(separator: " + "), bindings, resultFormat: .binary)
                .int(0, 0) ?? 0
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
            let rows = merged.rangeRows[position]
            let last: PostgresValue?
            if merged.ended[position] && limit.map({ rows.count < $0 }) ?? true {
                last = nil  // the statement walked its whole range
            } else if merged.taken[position] > 0 {
                last = merged.result.bytes(rows[merged.taken[position] - 1], Self.keyColumn).map(PostgresValue.bytes)
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
            "range \(position): fetched \(merged.rangeRows[position].count) rows, merge took "
                + "\(merged.taken[position])"
        }
    }
}
