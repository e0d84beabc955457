import KuraCore
import KuraModel
import KuraSQLite
import KuraStore

/// A query answered from one composite index range per value of its `in` or `array-contains-any` filter
/// (`CompositeDisjunction`): one statement per range, each walking its range in key order and stopping at the
/// limit, stepped together on one snapshot and merged in the query's order (`CompositeMerge`).
struct SQLiteDisjunctionPlan: MergePlan {
    /// The ranges and how they merge.
    let disjunction: CompositeDisjunction
    /// One composite plan per range (`SQLiteQueryPlan(_:composite:)`), in `disjunction.ranges` order.
    let ranges: [SQLiteQueryPlan]
    /// Most documents returned.
    let limit: Int?

    /// Column of `x.key` in a range's `sql`.
    private static let keyColumn = 6

    /// The statements for `disjunction`'s ranges; with `scanCounter`, every entry any range reads is counted.
    init(_ query: NormalizedQuery, _ disjunction: CompositeDisjunction, scanCounter: SQLiteScanCounter?) throws {
        self.disjunction = disjunction
        limit = query.limit
        ranges = try disjunction.ranges.map {
            try SQLiteQueryPlan($0.query, composite: $0.scan, scanCounter: scanCounter)
        }
    }

    /// What drives the scan, for `explain`.
    var driverDescription: String { CompositePlan.ranges(disjunction).description }

    /// The first range's statement, for `EXPLAIN QUERY PLAN` (every range has the same plan).
    var representative: SQLiteQueryPlan? { ranges.first }

    /// Calls `body` with each row of the merged result (the columns of `SQLiteQueryPlan.sql`, or only the key
    /// with `keysOnly`), in the query's order; returns the VM steps and full-scan steps of every statement.
    @discardableResult
    func forEachRow(
        _ connection: SQLiteConnection, keysOnly: Bool = false, _ body: ([SQLiteValue]) throws -> Void
    ) throws -> (vmSteps: Int, fullScanSteps: Int) {
        var statements: [SQLiteStatement] = []
        defer { for statement in statements { statement.reset() } }
        for (slot, range) in ranges.enumerated() {
            // The statements are stepped at the same time, so each needs its own cached statement even when the
            // SQL of two ranges is the same: the slot number makes the text distinct (and reusable next time).
            let statement = try connection.statement((keysOnly ? range.keySQL : range.sql) + " -- range \(slot)")
            try statement.bind(range.bindings)
            statements.append(statement)
        }
        let keyColumn = keysOnly ? 0 : Self.keyColumn
        var merge = CompositeMerge<[SQLiteValue]>(disjunction, limit: limit)
        while let row = try merge.next(read: { range in
            guard try statements[range].step() else { return nil }
            let row = statements[range].row()
            return (row[keyColumn].blob ?? [], row)
        }) {
            try body(row)
        }
        return (statements.reduce(0) { $0 + $1.vmSteps }, statements.reduce(0) { $0 + $1.fullScanSteps })
    }

    /// The number of documents matched (within the cursors and limit). The ranges of an `in` filter are
    /// disjoint (a field holds one value), so their counts add up; those of `array-contains-any` are merged by
    /// key to count each document once.
    func count(_ connection: SQLiteConnection) throws -> Int64 {
        guard disjunction.deduplicates else {
            var total: Int64 = 0
            for range in ranges { total += try connection.rows(range.countSQL, range.bindings).first?[0].int ?? 0 }
            return limit.map { min(total, Int64($0)) } ?? total
        }
        var total: Int64 = 0
        try forEachRow(connection, keysOnly: true) { _ in total += 1 }
        return total
    }
}
