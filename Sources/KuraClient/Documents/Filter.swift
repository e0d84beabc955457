import Foundation

/// A query condition as Firestore's iOS SDK builds it: a field filter (`Filter.whereField("a", isEqualTo: 1)`), or
/// an `or`/`and` of filters (`Filter.orFilter([…])`, `Filter.andFilter([…])`), nested as deep as needed. Apply it with
/// `query.whereFilter(_:)`; `or` filters follow docs/api.md ("`or` and `and` filters").
public struct Filter: Sendable {
    let condition: Query.Condition
    /// A value JSON cannot hold (`Any` operands): thrown when the query runs.
    let invalidValue: KuraError?

    private init(_ condition: Query.Condition, invalidValue: KuraError? = nil) {
        self.condition = condition
        self.invalidValue = invalidValue
    }

    private static func field(_ field: String, _ op: String, _ value: KuraValue) -> Filter {
        Filter(.field(.init(field: field, op: op, value: value)))
    }

    private static func bridged(_ field: String, _ op: String, _ value: Any?) -> Filter {
        do {
            return Filter(.field(.init(field: field, op: op, value: try KuraValue.bridge(value, at: field))))
        } catch {
            return Filter(.field(.init(field: field, op: op, value: .null)), invalidValue: error as? KuraError)
        }
    }

    /// Documents matching any of `filters`.
    public static func orFilter(_ filters: [Filter]) -> Filter {
        Filter(.or(filters.map(\.condition)), invalidValue: filters.lazy.compactMap(\.invalidValue).first)
    }

    /// Documents matching all of `filters`.
    public static func andFilter(_ filters: [Filter]) -> Filter {
        Filter(.and(filters.map(\.condition)), invalidValue: filters.lazy.compactMap(\.invalidValue).first)
    }

    /// `field` equals `value`.
    public static func whereField(_ field: String, isEqualTo value: KuraValue) -> Filter {
        Self.field(field, "==", value)
    }
    /// `field` exists and differs from `value`.
    public static func whereField(_ field: String, isNotEqualTo value: KuraValue) -> Filter {
        Self.field(field, "!=", value)
    }
    public static func whereField(_ field: String, isLessThan value: KuraValue) -> Filter {
        Self.field(field, "<", value)
    }
    public static func whereField(_ field: String, isLessThanOrEqualTo value: KuraValue) -> Filter {
        Self.field(field, "<=", value)
    }
    public static func whereField(_ field: String, isGreaterThan value: KuraValue) -> Filter {
        Self.field(field, ">", value)
    }
    public static func whereField(_ field: String, isGreaterThanOrEqualTo value: KuraValue) -> Filter {
        Self.field(field, ">=", value)
    }
    /// The array `field` contains `value`.
    public static func whereField(_ field: String, arrayContains value: KuraValue) -> Filter {
        Self.field(field, "array-contains", value)
    }
    /// The array `field` contains any of `values`.
    public static func whereField(_ field: String, arrayContainsAny values: [KuraValue]) -> Filter {
        Self.field(field, "array-contains-any", .array(values))
    }
    /// `field` equals one of `values`.
    public static func whereField(_ field: String, in values: [KuraValue]) -> Filter {
        Self.field(field, "in", .array(values))
    }
    /// `field` exists and equals none of `values`.
    public static func whereField(_ field: String, notIn values: [KuraValue]) -> Filter {
        Self.field(field, "not-in", .array(values))
    }

    /// `whereField(_:isEqualTo:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public static func whereField(_ field: String, isEqualTo value: Any) -> Filter { bridged(field, "==", value) }
    /// `whereField(_:isNotEqualTo:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public static func whereField(_ field: String, isNotEqualTo value: Any) -> Filter { bridged(field, "!=", value) }
    /// `whereField(_:isLessThan:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public static func whereField(_ field: String, isLessThan value: Any) -> Filter { bridged(field, "<", value) }
    /// `whereField(_:isGreaterThan:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public static func whereField(_ field: String, isGreaterThan value: Any) -> Filter { bridged(field, ">", value) }
    /// `whereField(_:in:)` with Firebase-style values (`[Any]`).
    @_disfavoredOverload
    public static func whereField(_ field: String, in values: [Any]) -> Filter { bridged(field, "in", values) }
}

extension Queryable {
    /// Documents that also match `filter` (an `or`/`and` of filters, or one field filter).
    public func whereFilter(_ filter: Filter) -> Query {
        var query = self.query
        if case .field(let field) = filter.condition {
            query.filters.append(field)
        } else {
            query.composites.append(filter.condition)
        }
        query.invalidValue = query.invalidValue ?? filter.invalidValue
        return query
    }
}
