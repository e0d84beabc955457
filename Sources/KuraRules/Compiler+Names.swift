import KuraCore
import KuraModel

/// Identifiers, `request.*`/`resource.*`, calls, methods and path literals.
extension Compiler {
    /// Fields `request` has; `request.<field>` compiles to a direct read.
    static let requestFields: Set<String> = ["auth", "resource", "time", "method", "path"]

    func compileIdentifier(_ name: String, scope: CompileScope, position: SourcePosition) throws(SyntaxError)
        -> Evaluator
    {
        if let index = locals?[name] {
            return { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                evaluation.stack[evaluation.base + index]
            }
        }
        if let slot = scope.variable(name) {
            recorder?.slots.insert(slot)
            return { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in evaluation.slots[slot] }
        }
        switch name {
        case "request":
            recorder?.readsDocument = true  // the whole map holds `request.path`
            return { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in evaluation.request }
        case "resource":
            recorder?.readsDocument = true
            return { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in evaluation.resource }
        default: throw SyntaxError(position: position, message: "unknown identifier '\(name)'")
        }
    }

    private func isGlobal(_ name: String, scope: CompileScope) -> Bool {
        locals?[name] == nil && scope.variable(name) == nil
    }

    /// Whether `expression` is `request.auth` with `request` the global.
    func isRequestAuth(_ expression: Expression, scope: CompileScope) -> Bool {
        guard case .member(let base, "auth") = expression.kind, case .identifier("request") = base.kind else {
            return false
        }
        return isGlobal("request", scope: scope)
    }

    mutating func compileMember(_ base: Expression, _ name: String, scope: CompileScope, position: SourcePosition)
        throws(SyntaxError) -> CompiledExpression
    {
        // `request.auth.uid` and `request.auth.token` read the caller directly: no `request.auth` map per request,
        // and the token's claims only when a rule reads them. Signed out, both fail as `null.uid` would.
        if (name == "uid" || name == "token"), isRequestAuth(base, scope: scope) {
            let isUID = name == "uid"
            return CompiledExpression(
                evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    guard let auth = evaluation.context.auth else {
                        throw RuleEvaluationError("cannot read field '\(isUID ? "uid" : "token")' of null")
                    }
                    return isUID ? .string(auth.uid) : evaluation.authToken
                }, type: nil)
        }
        if case .identifier("request") = base.kind, isGlobal("request", scope: scope) {
            let evaluate: Evaluator
            switch name {
            case "auth":
                evaluate = { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in evaluation.auth }
            case "resource":
                // The same for every document a `list` sees (null), but the data of each write.
                recorder?.readsVolatile = true
                evaluate = { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    evaluation.requestResource
                }
            case "time":
                recorder?.readsVolatile = true
                evaluate = { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    .timestamp(evaluation.context.time)
                }
                return CompiledExpression(evaluate: evaluate, type: .timestamp)
            case "method":
                evaluate = { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    .string(evaluation.method.rawValue)
                }
                return CompiledExpression(evaluate: evaluate, type: .string)
            case "path":
                recorder?.readsDocument = true
                evaluate = { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in .path(evaluation.path)
                }
                return CompiledExpression(evaluate: evaluate, type: .path)
            default:
                let fields = Self.requestFields.sorted().joined(separator: ", ")
                throw SyntaxError(position: position, message: "request has no field '\(name)' (fields: \(fields))")
            }
            return CompiledExpression(evaluate: evaluate, type: nil)
        }
        let container = try compileExpression(base, scope: scope)
        if let type = container.type, type != .map {
            throw SyntaxError(position: position, message: "cannot read field '\(name)' of \(type)")
        }
        let evaluate = container.evaluate
        return CompiledExpression(
            evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                try Operators.member(evaluate(evaluation), name)
            }, type: nil)
    }

    mutating func compileCall(_ name: String, _ arguments: [Expression], scope: CompileScope, position: SourcePosition)
        throws(SyntaxError) -> CompiledExpression
    {
        var evaluators: [Evaluator] = []
        var types: [RuleType?] = []
        for argument in arguments {
            let compiled = try compileExpression(argument, scope: scope)
            evaluators.append(compiled.evaluate)
            types.append(compiled.type)
        }
        if let function = scope.function(name) {
            let parameters = function.declaration.parameters.count
            guard parameters == arguments.count else {
                throw SyntaxError(
                    position: position,
                    message: "function '\(name)' takes \(parameters) argument\(parameters == 1 ? "" : "s"), "
                        + "given \(arguments.count)")
            }
            currentFunction?.callees.append(function)
            recorder?.callees.append(function)
            let extra = function.declaration.lets.count
            return CompiledExpression(
                evaluate: { [evaluators] (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    try Self.call(function, evaluators, extra: extra, evaluation)
                }, type: nil)
        }
        guard let arity = Self.builtinFunctions[name] else {
            throw SyntaxError(position: position, message: "unknown function '\(name)'")
        }
        guard arity == arguments.count else {
            throw SyntaxError(
                position: position, message: "\(name)() takes \(arity) argument, given \(arguments.count)")
        }
        if let type = types[0], type != .path {
            throw SyntaxError(position: position, message: "\(name)() needs a path like /users/$(uid), found \(type)")
        }
        let pathEvaluator = evaluators[0]
        let isExists = name == "exists"
        recorder?.readsVolatile = true
        return CompiledExpression(
            evaluate: { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                guard case .path(var segments) = try pathEvaluator(evaluation) else {
                    throw RuleEvaluationError("\(isExists ? "exists" : "get")() needs a path")
                }
                // Accept Firestore's full form /databases/(default)/documents/… as well as the short form.
                if segments.count >= 3, segments[0] == "databases", segments[2] == "documents" {
                    segments.removeFirst(3)
                }
                let document = try evaluation.lookup(segments)
                if isExists { return .bool(document != nil) }
                guard let document else { return .null }
                return Evaluation.documentValue(RuleDocument(id: segments.last ?? "", data: document))
            }, type: isExists ? .bool : nil)
    }

    /// Runs a user function: arguments are pushed in the caller's frame, then the callee's frame becomes current.
    private static func call(
        _ function: CompiledFunction, _ arguments: [Evaluator], extra: Int, _ evaluation: Evaluation
    ) throws(RuleEvaluationError) -> RuleValue {
        evaluation.calls += 1
        guard evaluation.calls <= Evaluation.maxCalls else {
            throw RuleEvaluationError("more than \(Evaluation.maxCalls) function calls in one evaluation")
        }
        guard evaluation.depth < Evaluation.maxCallDepth else {
            throw RuleEvaluationError("function calls nested deeper than \(Evaluation.maxCallDepth)")
        }
        let frame = evaluation.stack.count
        for argument in arguments { evaluation.stack.append(try argument(evaluation)) }
        for _ in 0..<extra { evaluation.stack.append(.null) }
        let savedBase = evaluation.base
        evaluation.base = frame
        evaluation.depth += 1
        defer {
            evaluation.depth -= 1
            evaluation.base = savedBase
            evaluation.stack.removeSubrange(frame...)
        }
        return try function.body(evaluation)
    }

    mutating func compileMethodCall(
        _ base: Expression, _ name: String, _ arguments: [Expression], scope: CompileScope, position: SourcePosition
    ) throws(SyntaxError) -> CompiledExpression {
        guard let arity = Methods.arity[name] else {
            let known = Methods.arity.keys.sorted().joined(separator: ", ")
            throw SyntaxError(position: position, message: "unknown method '\(name)' (methods: \(known))")
        }
        guard arity == arguments.count else {
            throw SyntaxError(
                position: position,
                message: "\(name)() takes \(arity) argument\(arity == 1 ? "" : "s"), given \(arguments.count)")
        }
        let compiledReceiver = try compileExpression(base, scope: scope)
        if let type = compiledReceiver.type, Methods.receivers[name]?.contains(type) == false {
            throw SyntaxError(position: position, message: "\(type) has no method '\(name)'")
        }
        let receiver = compiledReceiver.evaluate
        var evaluators: [Evaluator] = []
        for argument in arguments { evaluators.append(try compileExpression(argument, scope: scope).evaluate) }
        var regex: CompiledRegex? = nil
        if name == "matches", case .string(let pattern) = arguments[0].kind {
            guard let compiled = CompiledRegex(pattern) else {
                throw SyntaxError(position: arguments[0].position, message: "invalid regular expression")
            }
            regex = compiled
        }
        let staticRegex = regex
        let resultType: RuleType? =
            switch name {
            case "size", "toMillis": .int
            case "keys", "values": .list
            case "hasAll", "hasAny", "hasOnly", "matches": .bool
            case "lower", "upper", "trim": .string
            default: nil
            }
        return CompiledExpression(
            evaluate: { [evaluators] (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                let value = try receiver(evaluation)
                var values: [RuleValue] = []
                for evaluator in evaluators { values.append(try evaluator(evaluation)) }
                return try Methods.call(name, value, values, regex: staticRegex)
            }, type: resultType)
    }

    mutating func compilePath(_ segments: [PathLiteralSegment], scope: CompileScope) throws(SyntaxError) -> Evaluator {
        enum Part { case text(String), expression(Evaluator) }
        var parts: [Part] = []
        for segment in segments {
            switch segment {
            case .text(let text): parts.append(.text(text))
            case .expression(let expression):
                parts.append(.expression(try compileExpression(expression, scope: scope).evaluate))
            }
        }
        let frozen = parts
        return { (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
            var result: [String] = []
            result.reserveCapacity(frozen.count)
            for part in frozen {
                switch part {
                case .text(let text): result.append(text)
                case .expression(let evaluate):
                    switch try evaluate(evaluation) {
                    case .string(let string):
                        guard !string.isEmpty, !string.contains("/") else {
                            throw RuleEvaluationError("path segment is empty or contains '/'")
                        }
                        result.append(string)
                    case .int(let int): result.append(String(int))
                    case let other: throw RuleEvaluationError("path segment must be a string, found \(other.typeName)")
                    }
                }
            }
            return .path(result)
        }
    }
}
