import Foundation

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

    @_disfavoredOverload
    public func whereField(_ field: String, isEqualTo value: Any) -> Query { adding(field, "==", value) }
    @_disfavoredOverload
    public func whereField(_ field: String, isNotEqualTo value: Any) -> Query { adding(field, "!=", value) }
    @_disfavoredOverload
    public func whereField(_ field: String, isLessThan value: Any) -> Query { adding(field, "<", value) }
    @_disfavoredOverload
    public func whereField(_ field: String, isLessThanOrEqualTo value: Any) -> Query { adding(field, "<=", value) }
    @_disfavoredOverload
    public func whereField(_ field: String, isGreaterThan value: Any) -> Query { adding(field, ">", value) }
    @_disfavoredOverload
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: Any) -> Query { adding(field, ">=", value) }
    @_disfavoredOverload
    public func whereField(_ field: String, arrayContains value: Any) -> Query {
        adding(field, "array-contains", value)
    }
    @_disfavoredOverload
    public func whereField(_ field: String, arrayContainsAny values: [Any]) -> Query {
        adding(field, "array-contains-any", values)
    }
    @_disfavoredOverload
    public func whereField(_ field: String, in values: [Any]) -> Query { adding(field, "in", values) }
    @_disfavoredOverload
    public func whereField(_ field: String, notIn values: [Any]) -> Query { adding(field, "not-in", values) }
}
