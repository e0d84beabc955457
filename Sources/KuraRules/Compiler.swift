/// A user function, filled in after every function in scope is known (so functions may call later ones).
final class CompiledFunction: @unchecked Sendable {
    // `@unchecked`: `scope` and `body` are written while the rules compile, on one thread, and only read once
    // `RuleSet.compile` returns.
    let declaration: FunctionDeclaration
    /// Compile-time only; cleared afterwards because scopes refer back to their functions (a retain cycle).
    var scope: CompileScope?
    // Written once during compilation, read-only afterwards.
    var body: Evaluator = { _ throws(RuleEvaluationError) in .null }
    /// What the body reads (compile-time only).
    let dependencies = DependencyRecorder()
    var frameSize: Int { declaration.parameters.count + declaration.lets.count }
    var callees: [CompiledFunction] = []

    init(_ declaration: FunctionDeclaration, scope: CompileScope) {
        self.declaration = declaration
        self.scope = scope
    }
}

/// Compile-time names visible in a match block: its path variables and functions, then the enclosing block's.
final class CompileScope {
    let parent: CompileScope?
    var variables: [String: Int] = [:]
    var functions: [String: CompiledFunction] = [:]

    init(parent: CompileScope?) { self.parent = parent }

    func variable(_ name: String) -> Int? { variables[name] ?? parent?.variable(name) }
    func function(_ name: String) -> CompiledFunction? { functions[name] ?? parent?.function(name) }
}

/// A compiled `allow`. A class, like `CompiledMatch`, so that evaluation walks the rules by reference instead of
/// copying (and reference counting) every field of every statement it visits. Filled in by the compiler, never
/// changed once `RuleSet.compile` returns: that is what makes sharing it between threads safe.
final class CompiledAllow: @unchecked Sendable {
    // `@unchecked`: written by the compiler only, read-only once `RuleSet.compile` returns (above).
    /// Bit per `RuleMethod` (in `allCases` order).
    let methods: UInt8
    let condition: Evaluator
    let position: SourcePosition
    /// What the condition reads, through the functions it calls too (filled in once every body is compiled).
    var dependencies = RuleDependencies()

    init(methods: UInt8, condition: @escaping Evaluator, position: SourcePosition) {
        self.methods = methods
        self.condition = condition
        self.position = position
    }
}

/// A compiled `match` block: pattern segments with the slot each variable binds. Immutable once compiled (see
/// `CompiledAllow`).
final class CompiledMatch: @unchecked Sendable {
    // `@unchecked`: written by the compiler only, read-only once `RuleSet.compile` returns.
    enum Segment: Sendable {
        case literal(String)
        case variable(slot: Int)
        /// `{name=**}`; `slot` is nil when no condition reads `name`, so evaluation need not join the rest.
        case rest(slot: Int?)
    }
    var segments: [Segment]
    /// `match /databases/{database}/documents`: consumes no segments and binds `database` to `(default)`.
    var databaseRootSlot: Int?
    let allows: [CompiledAllow]
    var children: [CompiledMatch]

    init(segments: [Segment], databaseRootSlot: Int?, allows: [CompiledAllow], children: [CompiledMatch]) {
        self.segments = segments
        self.databaseRootSlot = databaseRootSlot
        self.allows = allows
        self.children = children
    }
}

/// Resolves names, checks arity and obvious type errors, and turns the AST into a closure tree.
struct Compiler {
    var slotCount = 0
    var allFunctions: [CompiledFunction] = []
    /// Names of the current function's parameters and lets → frame index; `nil` outside functions.
    var locals: [String: Int]? = nil
    var currentFunction: CompiledFunction? = nil
    /// Collects what the expression being compiled reads; `nil` when nobody is asking.
    var recorder: DependencyRecorder? = nil
    /// One recorder per compiled `allow`, in the order `compile(_:parent:)` visits them (pre-order).
    var allowRecorders: [DependencyRecorder] = []

    mutating func compile(_ file: RulesFile) throws(SyntaxError) -> [CompiledMatch] {
        var succeeded = false
        defer {
            // Break the compile-time reference cycles (function ↔ scope, and recursive bodies on failure).
            for function in allFunctions {
                function.scope = nil
                function.callees = []
                function.dependencies.callees = []
                if !succeeded { function.body = { _ throws(RuleEvaluationError) in .null } }
            }
        }
        let root = CompileScope(parent: nil)
        try declare(file.functions, in: root)
        var matches: [CompiledMatch] = []
        for block in file.matches { matches.append(try compile(block, parent: root)) }
        try compileFunctionBodies()
        try rejectRecursion()
        var next = 0
        matches = matches.map { resolveDependencies($0, next: &next) }
        allowRecorders = []
        succeeded = true
        return matches
    }

    private mutating func declare(_ functions: [FunctionDeclaration], in scope: CompileScope) throws(SyntaxError) {
        for declaration in functions {
            if scope.functions[declaration.name] != nil {
                throw SyntaxError(
                    position: declaration.position, message: "function '\(declaration.name)' is defined twice")
            }
            if Self.builtinFunctions[declaration.name] != nil {
                throw SyntaxError(
                    position: declaration.position, message: "'\(declaration.name)' is a built-in function")
            }
            let function = CompiledFunction(declaration, scope: scope)
            scope.functions[declaration.name] = function
            allFunctions.append(function)
        }
    }

    private mutating func compile(_ block: MatchBlock, parent: CompileScope) throws(SyntaxError) -> CompiledMatch {
        let scope = CompileScope(parent: parent)
        var segments: [CompiledMatch.Segment] = []
        var databaseRootSlot: Int?
        for segment in block.segments {
            switch segment {
            case .literal(let text): segments.append(.literal(text))
            case .variable(let name):
                scope.variables[name] = slotCount
                segments.append(.variable(slot: slotCount))
                slotCount += 1
            case .rest(let name):
                scope.variables[name] = slotCount
                segments.append(.rest(slot: slotCount))
                slotCount += 1
            }
        }
        if parent.parent == nil, block.segments.count == 3, block.segments[0] == .literal("databases"),
            case .variable(slot: let slot) = segments[1], block.segments[2] == .literal("documents")
        {
            databaseRootSlot = slot
            segments = []
        }
        if case .rest = segments.last, !block.matches.isEmpty {
            throw SyntaxError(
                position: block.matches[0].position, message: "a match ending in '**' cannot contain nested matches")
        }
        try declare(block.functions, in: scope)
        var allows: [CompiledAllow] = []
        for allow in block.allows {
            let recorder = DependencyRecorder()
            allowRecorders.append(recorder)
            self.recorder = recorder
            let condition = try compileExpression(allow.condition, scope: scope)
            self.recorder = nil
            if let type = condition.type, type != .bool {
                throw SyntaxError(
                    position: allow.condition.position, message: "condition must be a bool, found \(type)")
            }
            var bits: UInt8 = 0
            for method in allow.methods {
                for expanded in Self.expand(method) { bits |= expanded.bit }
            }
            allows.append(CompiledAllow(methods: bits, condition: condition.evaluate, position: allow.position))
        }
        var children: [CompiledMatch] = []
        for child in block.matches { children.append(try compile(child, parent: scope)) }
        return CompiledMatch(
            segments: segments, databaseRootSlot: databaseRootSlot, allows: allows, children: children)
    }

    static func expand(_ method: AllowMethodName) -> [RuleMethod] {
        switch method {
        case .get: [.get]
        case .list: [.list]
        case .create: [.create]
        case .update: [.update]
        case .delete: [.delete]
        case .read: [.get, .list]
        case .write: [.create, .update, .delete]
        }
    }

    private mutating func compileFunctionBodies() throws(SyntaxError) {
        for function in allFunctions {
            let declaration = function.declaration
            guard let scope = function.scope else { continue }
            var names: [String: Int] = [:]
            for (index, parameter) in declaration.parameters.enumerated() { names[parameter] = index }
            currentFunction = function
            recorder = function.dependencies
            var letEvaluators: [(Int, Evaluator)] = []
            for (offset, binding) in declaration.lets.enumerated() {
                locals = names
                let value = try compileExpression(binding.value, scope: scope)
                let index = declaration.parameters.count + offset
                names[binding.name] = index
                letEvaluators.append((index, value.evaluate))
            }
            locals = names
            let body = try compileExpression(declaration.body, scope: scope).evaluate
            locals = nil
            currentFunction = nil
            recorder = nil
            if letEvaluators.isEmpty {
                function.body = body
            } else {
                function.body = { [letEvaluators] (evaluation: Evaluation) throws(RuleEvaluationError) -> RuleValue in
                    for (index, value) in letEvaluators {
                        evaluation.stack[evaluation.base + index] = try value(evaluation)
                    }
                    return try body(evaluation)
                }
            }
        }
    }

    /// Rules cannot recurse (as in Firestore): a cycle in the call graph is a static error.
    private func rejectRecursion() throws(SyntaxError) {
        var state: [ObjectIdentifier: Int] = [:]  // 1 = on the current path, 2 = done
        func visit(_ function: CompiledFunction) throws(SyntaxError) {
            let id = ObjectIdentifier(function)
            if state[id] == 2 { return }
            if state[id] == 1 {
                throw SyntaxError(
                    position: function.declaration.position,
                    message: "function '\(function.declaration.name)' is recursive; recursion is not allowed")
            }
            state[id] = 1
            for callee in function.callees { try visit(callee) }
            state[id] = 2
        }
        for function in allFunctions { try visit(function) }
    }
}
