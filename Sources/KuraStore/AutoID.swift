import KuraCore
import KuraModel

/// Automatic document IDs (`POST /api/docs/{collection}`, `DocumentStore.create(in:)`): 20 base62 characters,
/// the first 9 encoding the creation time in microseconds and the last 11 random (65 bits).
///
/// Why time first: index rows are keyed `(collection, field, value, id)`, so with fully random IDs every new
/// document's rows land on random B-tree leaves and a group-committed batch of creates dirties a page per index
/// row. Time-ordered IDs append next to each other, and the batch shares its pages (measured: durable creates/s
/// up several times; docs/design/performance.md, "Durable creates on SQLite"). The ID reveals when the document
/// was made, as `createTime` does.
public enum AutoID {
    /// Digits in byte order, so IDs compare like their timestamps.
    private static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// A new automatic ID.
    public static func automatic(now micros: Int64 = WallClock.nowMicros()) -> String {
        var time = UInt64(max(0, micros))
        var prefix = [UInt8](repeating: digits[0], count: 9)
        for index in stride(from: 8, through: 0, by: -1) {
            prefix[index] = digits[Int(time % 62)]
            time /= 62
        }
        return String(decoding: prefix, as: UTF8.self) + SecureRandom.base62(11)
    }
}
