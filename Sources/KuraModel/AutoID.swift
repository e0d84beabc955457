/// Automatic document IDs (`POST /api/docs/{collection}`, the server's `DocumentStore.create(in:)`, the SDKs'
/// `document()`/`addDocument`): 20 base62 characters, the first 9 encoding the creation time in microseconds and
/// the last 11 random (65 bits).
///
/// Why time first: index rows are keyed `(collection, field, value, id)`, so with fully random IDs every new
/// document's rows land on random B-tree leaves and a group-committed batch of creates dirties a page per index
/// row. Time-ordered IDs append next to each other, and the batch shares its pages (measured: durable creates/s
/// up several times; docs/design/performance.md, "Durable creates on SQLite"). The ID reveals when the document
/// was made, as `createTime` does.
public enum AutoID {
    /// Digits in byte order, so IDs compare like their timestamps.
    private static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// A new ID made at `micros` (microseconds since the Unix epoch), its random part drawn from `generator`.
    public static func make(micros: Int64, using generator: inout some RandomNumberGenerator) -> String {
        var id = [UInt8](repeating: digits[0], count: 20)
        var time = UInt64(max(0, micros))
        for index in stride(from: 8, through: 0, by: -1) {
            id[index] = digits[Int(time % 62)]
            time /= 62
        }
        for index in 9..<20 { id[index] = digits[Int(generator.next(upperBound: UInt64(62)))] }
        return String(decoding: id, as: UTF8.self)
    }

    /// A new ID made at `micros`, its random part from the system's secure generator.
    public static func make(micros: Int64) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(micros: micros, using: &generator)
    }
}
