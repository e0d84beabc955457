import Foundation
internal import KuraModel

/// Firestore's `whereField` with `Any` values, so a variable of a plain Swift type works as in Firebase code
/// (`whereField("owner", isEqualTo: uid)`). A value JSON cannot hold makes the query throw `.invalidArgument` when
/// it runs.
extension Queryable {
    private func adding(_ field: String, _ op: String, _ value: Any?) -> Query {
        var query = self.query
        do {
            query.filters.append(.init(field: field, op: op, value: try KuraValue.bridge(value, at: field)))
        } catch {
            query.invalidValue = query.invalidValue ?? (error as? KuraError)
        }
        return query
    }

    /// `whereField(_:isEqualTo:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public func whereField(_ field: String, isEqualTo value: Any) -> Query { adding(field, "==", value) }
    /// `whereField(_:isNotEqualTo:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public func whereField(_ field: String, isNotEqualTo value: Any) -> Query { adding(field, "!=", value) }
    /// `whereField(_:isLessThan:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public func whereField(_ field: String, isLessThan value: Any) -> Query { adding(field, "<", value) }
    /// `whereField(_:isLessThanOrEqualTo:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public func whereField(_ field: String, isLessThanOrEqualTo value: Any) -> Query { adding(field, "<=", value) }
    /// `whereField(_:isGreaterThan:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public func whereField(_ field: String, isGreaterThan value: Any) -> Query { adding(field, ">", value) }
    /// `whereField(_:isGreaterThanOrEqualTo:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: Any) -> Query { adding(field, ">=", value) }
    /// `whereField(_:arrayContains:)` with a Firebase-style value (`Any`).
    @_disfavoredOverload
    public func whereField(_ field: String, arrayContains value: Any) -> Query {
        adding(field, "array-contains", value)
    }
    /// `whereField(_:arrayContainsAny:)` with Firebase-style values (`[Any]`).
    @_disfavoredOverload
    public func whereField(_ field: String, arrayContainsAny values: [Any]) -> Query {
        adding(field, "array-contains-any", values)
    }
    /// `whereField(_:in:)` with Firebase-style values (`[Any]`).
    @_disfavoredOverload
    public func whereField(_ field: String, in values: [Any]) -> Query { adding(field, "in", values) }
    /// `whereField(_:notIn:)` with Firebase-style values (`[Any]`).
    @_disfavoredOverload
    public func whereField(_ field: String, notIn values: [Any]) -> Query { adding(field, "not-in", values) }
}
