import Foundation
import KuraModel
import KuraStore

/// The data set of the missing-index tests (`maxScanRows`), the same for every engine: 6100 documents `todos/t<n>`,
/// `cat == 7` on the 4100 with the smallest `n`, `cat` in 100…149 on the others. `cat == 7` is too common for the
/// `==` driver, so `cat == 7 order by n desc` walks the `n` index from the top through 2000 other documents first.
public enum MissingIndexData {
    /// Writes the 6100 documents, 500 a commit.
    public static func load(into store: some DocumentStore) throws {
        let writes = try (0..<6100).map { i -> Write in
            let cat: Int64 = i < 4100 ? 7 : Int64(100 + i % 50)
            return Write(
                path: try doc("todos/t\(i)"), operation: .set(["cat": .int(cat), "n": .int(Int64(i))], merge: false))
        }
        for chunk in stride(from: 0, to: writes.count, by: 500) {
            _ = try store.commit(Array(writes[chunk..<min(chunk + 500, writes.count)]))
        }
    }

    /// `cat == 7 order by n desc limit 2`.
    public static func query() throws -> StructuredQuery {
        StructuredQuery(
            .collection(try col("todos")), filters: [Filter(.field(try field("cat")), .equal, 7)],
            orderBy: [Order(.field(try field("n")), descending: true)], limit: 2)
    }
}

/// Log lines a store wrote, read by tests from any thread.
public final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    /// An empty log.
    public init() {}

    /// Records one line (the store's `log` callback).
    public func append(_ line: String) { lock.withLock { lines.append(line) } }

    /// Every line so far.
    public var all: [String] { lock.withLock { lines } }
}
