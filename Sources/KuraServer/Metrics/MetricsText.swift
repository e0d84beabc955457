/// Writes the Prometheus text exposition format, version 0.0.4: each family's `# HELP` and `# TYPE` lines, then
/// its samples, every one carrying the labels common to this node (`kura_node`).
struct MetricsText {
    /// The content type of the answer.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private(set) var text = ""
    /// `kura_node="…"` (escaped), put first in every sample's labels.
    private let common: String

    init(node: String) {
        common = "kura_node=\"\(Self.escaped(node))\""
        text.reserveCapacity(16 * 1024)
    }

    enum Kind: String {
        case counter, gauge, histogram
    }

    /// Starts the family `name`.
    mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// One sample of the current family.
    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        text += "{"
        text += common
        for (label, labelValue) in labels {
            text += ",\(label)=\"\(Self.escaped(labelValue))\""
        }
        text += "} "
        text += Self.format(value)
        text += "\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: UInt64) {
        sample(name, labels, Double(value))
    }

    /// A whole family with one sample.
    mutating func single(_ name: String, _ kind: Kind, _ help: String, _ value: Double) {
        family(name, kind, help)
        sample(name, [], value)
    }

    /// The `_bucket`, `_sum` and `_count` samples of one histogram series: `cumulative` holds one count per bound,
    /// then `+Inf`'s (the count).
    mutating func histogram(
        _ name: String, _ labels: [(String, String)], bounds: [Double], cumulative: [UInt64], sum: Double
    ) {
        for (index, bound) in bounds.enumerated() {
            sample(name + "_bucket", labels + [("le", Self.format(bound))], cumulative[index])
        }
        let count = cumulative.last ?? 0
        sample(name + "_bucket", labels + [("le", "+Inf")], count)
        sample(name + "_sum", labels, sum)
        sample(name + "_count", labels, count)
    }

    /// Integers without a fraction; others as Swift prints doubles (which Prometheus parses).
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A label value with `\`, `"` and line feeds escaped.
    static func escaped(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
