/// One aggregation of `POST /api/query/aggregate` (Firestore's `count()`, `sum(field)`, `average(field)`).
public enum Aggregation: Sendable, Equatable {
    /// The number of documents.
    case count
    /// The sum of the field's numeric values.
    case sum(FieldPath)
    /// The mean of the field's numeric values.
    case average(FieldPath)
}

/// The running value of one `Aggregation` over documents, with Firestore's semantics: values that are not
/// numbers and missing fields are skipped; a sum of integers is an integer until a double is added or it
/// overflows, then a double; the sum of nothing is 0; an average is a double, `null` when no value was a number.
public struct AggregateAccumulator: Sendable {
    /// What is computed.
    public let aggregation: Aggregation
    private var documents: Int64 = 0
    private var numbers: Int64 = 0
    private var integerSum: Int64 = 0
    private var doubleSum: Double = 0
    private var isDouble = false

    /// Nothing counted yet.
    public init(_ aggregation: Aggregation) { self.aggregation = aggregation }

    /// Adds one document.
    public mutating func add(_ document: Document) {
        documents += 1
        let path: FieldPath
        switch aggregation {
        case .count: return
        case .sum(let field), .average(let field): path = field
        }
        switch document.fields.value(at: path) {
        case .int(let value)?:
            numbers += 1
            if isDouble {
                doubleSum += Double(value)
            } else {
                let (sum, overflow) = integerSum.addingReportingOverflow(value)
                if overflow {
                    isDouble = true
                    doubleSum = Double(integerSum) + Double(value)
                } else {
                    integerSum = sum
                }
            }
        case .double(let value)?:
            numbers += 1
            if !isDouble {
                isDouble = true
                doubleSum = Double(integerSum)
            }
            doubleSum += value
        default: break
        }
    }

    /// The result so far.
    public var value: JSONValue {
        switch aggregation {
        case .count: return .int(documents)
        case .sum: return isDouble ? .double(doubleSum) : .int(integerSum)
        case .average:
            guard numbers > 0 else { return .null }
            return .double((isDouble ? doubleSum : Double(integerSum)) / Double(numbers))
        }
    }
}
