/// Sentinel values for writes that the server resolves: `["createdAt": FieldValue.serverTimestamp(),
/// "plays": FieldValue.increment(1)]`. Each becomes a transform of `POST /api/commit`, applied after the write's
/// data, atomically with it.
public enum FieldValue {
    /// The commit time, as the RFC 3339 string the server stores for times.
    public static func serverTimestamp() -> KuraValue { .transform(.serverTimestamp) }
    /// Adds to the field's number (a missing or non-numeric field counts as 0). Integer sums saturate at 64 bits.
    public static func increment(_ amount: Int) -> KuraValue { .transform(.increment(.integer(Int64(amount)))) }
    public static func increment(_ amount: Int64) -> KuraValue { .transform(.increment(.integer(amount))) }
    public static func increment(_ amount: Double) -> KuraValue { .transform(.increment(.double(amount))) }
    /// The larger of the field's number and `value`.
    public static func maximum(_ value: KuraValue) -> KuraValue { .transform(.maximum(value)) }
    /// The smaller of the field's number and `value`.
    public static func minimum(_ value: KuraValue) -> KuraValue { .transform(.minimum(value)) }
    /// Appends each element not already in the array (a non-array field becomes an array).
    public static func arrayUnion(_ elements: [KuraValue]) -> KuraValue { .transform(.arrayUnion(elements)) }
    /// Removes every occurrence of each element.
    public static func arrayRemove(_ elements: [KuraValue]) -> KuraValue { .transform(.arrayRemove(elements)) }
    /// Removes the field (in `updateData` and `setData(_:merge: true)`).
    public static func delete() -> KuraValue { .transform(.delete) }
}

/// What a `FieldValue` sentinel asks the server to do to a field.
public indirect enum FieldTransform: Sendable, Hashable, CustomStringConvertible {
    case serverTimestamp
    case increment(KuraValue)
    case maximum(KuraValue)
    case minimum(KuraValue)
    case arrayUnion([KuraValue])
    case arrayRemove([KuraValue])
    case delete

    public var description: String {
        switch self {
        case .serverTimestamp: "serverTimestamp()"
        case .increment(let value): "increment(\(value))"
        case .maximum(let value): "maximum(\(value))"
        case .minimum(let value): "minimum(\(value))"
        case .arrayUnion(let values): "arrayUnion(\(values))"
        case .arrayRemove(let values): "arrayRemove(\(values))"
        case .delete: "delete()"
        }
    }

}
