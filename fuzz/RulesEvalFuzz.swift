// libFuzzer harness for rule evaluation (KuraRules) against random documents: the input is a JSON object
// {"method": 0–4, "path": "a/b", "uid": "u", "token": {…}, "resource": {…}, "data": {…}, "lookup": {…}}, every member
// optional, evaluated by the seed apps' rules (apps/common.rules and apps/<app>/<app>.rules, read from the working
// directory when present) and by rules below that reach into the documents with every method and operator.
// Properties: evaluation never crashes and is deterministic; `evaluateInMemory`, when it can decide, decides as
// `evaluate` does; a document that differs only by a canonically equivalent (but byte-different) key or ID is not
// mistaken for the original where the rules compare names (checked through `==` on map keys below).
import KuraCore
import KuraModel

@testable import KuraRules

#if canImport(Glibc)
    import Glibc
#endif

private let probeRules = """
    match /{c}/{d} {
      allow get: if resource.data.size() > 1 && resource.data.keys().hasAny(['a', 'b', 'caf\\u00e9'])
        && resource.data.values().size() == resource.data.size();
      allow list: if resource.data.a is string && resource.data.a.size() < 10 && resource.data.a.matches('[a-z]*')
        && resource.data.a.lower() == resource.data.a.upper().lower() && resource.data.a.trim() != ' ';
      allow create: if request.resource.data.keys().hasOnly(['a', 'b', 'n', 't', 'm'])
        && request.resource.data.n is int && request.resource.data.n + 1 > request.resource.data.n
        && request.resource.data.get('m', {}).keys().hasAll([]);
      allow update: if request.resource.data.n / 2 >= resource.data.n % 3 || request.resource.data.t > request.time
        || request.resource.data.t.toMillis() > 0 || request.resource.data.b[0] in request.resource.data.b;
      allow delete: if request.auth.token.admin == true || request.auth.uid == resource.data.owner
        || exists(/users/$(request.auth.uid)) && get(/users/$(request.auth.uid)).data.role in ['admin', d, c];
      match /{sub=**} {
        allow read: if request.auth.uid == d && sub.size() > 0 && resource.data['caf\\u00e9'] == 'cafe\\u0301';
      }
    }
    """

private func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

private let ruleSets: [RuleSet] = {
    var sets = [try! RuleSet.compile(source: probeRules, fileName: "probe.rules")]
    let apps = ["apps/common.rules", "apps/calc/calc.rules", "apps/quiz/quiz.rules", "apps/places/places.rules"]
    let source = apps.compactMap(readFile).joined(separator: "\n")
    if !source.isEmpty, let set = try? RuleSet.compile(source: "rules_version = '1';\n" + source, fileName: "apps") {
        sets.append(set)
    }
    return sets
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func rulesEvalFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let input = try? JSONValue.parse(UnsafeBufferPointer(start: data, count: size)).objectValue else {
        return 0
    }
    let method: RuleMethod
    if case .int(let n)? = input["method"] {
        method = RuleMethod.allCases[Int(UInt64(bitPattern: n) % UInt64(RuleMethod.allCases.count))]
    } else {
        method = .get
    }
    let path = (input["path"]?.stringValue ?? "users/u1").split(separator: "/").map(String.init)
    let id = path.last ?? ""
    let auth = input["uid"]?.stringValue.map { RuleAuth(uid: $0, token: input["token"]?.objectValue ?? [:]) }
    let resource = input["resource"]?.objectValue.map { RuleDocument(id: id, data: $0) }
    let requestResource = input["data"]?.objectValue.map { RuleDocument(id: id, data: $0) }
    let lookups = input["lookup"]?.objectValue ?? [:]
    let context = {
        RuleContext(
            auth: auth, resource: resource, requestResource: requestResource, time: 1_700_000_000_000_000,
            lookup: { path in lookups[path.joined(separator: "/")]?.objectValue })
    }
    for rules in ruleSets {
        let first = rules.evaluate(method: method, path: path, context: context())
        let second = rules.evaluate(method: method, path: path, context: context())
        require(first == second, "evaluation is not deterministic: \(first) then \(second)")
        if let inMemory = rules.evaluateInMemory(method: method, path: path, context: context()) {
            require(inMemory == first, "evaluateInMemory decided \(inMemory), evaluate \(first)")
        }
    }
    return 0
}
