extension KuraConfiguration {
    /// `KURA_*` variables that Kura, its tools and its tests read and that name no setting: never warned about.
    static let otherEnvironmentVariables: Set<String> = [
        "KURA_CONFIG",  // the config file (kura)
        "KURA_SERVER",  // kura-todo's server
        "KURA_BIN", "KURA_ARGS",  // bench/*.sh
        "KURA_BROWSER_ARGS",  // Tests/Browser
    ]
    /// Prefixes of such variables: the tests' (`KURA_TEST_POSTGRES_URL`…) and kura-todo's.
    static let otherEnvironmentPrefixes = ["KURA_TEST_", "KURA_TODO_"]

    /// One warning per `KURA_*` variable in `environment` that names no setting (and is none of the variables Kura
    /// reads otherwise), sorted by name: flags and config files refuse unknown settings, but the environment is
    /// shared with everything else a shell runs, so a misspelt variable is only reported. The closest setting's
    /// variable is suggested when it is near.
    public static func environmentWarnings(_ environment: [String: String]) -> [String] {
        let known = Dictionary(settings.map { ($0.environmentName, $0.key) }, uniquingKeysWith: { first, _ in first })
        var warnings: [String] = []
        for name in environment.keys.sorted() where name.hasPrefix("KURA_") && known[name] == nil {
            guard !otherEnvironmentVariables.contains(name),
                !otherEnvironmentPrefixes.contains(where: { name.hasPrefix($0) })
            else { continue }
            var warning = "environment variable \(name) names no setting and is ignored"
            if let suggestion = closestVariable(to: name, among: known.keys) {
                warning += "; did you mean \(suggestion) (\(known[suggestion]!))?"
            }
            warnings.append(warning)
        }
        return warnings
    }

    /// The variable in `names` nearest to `name`: the same letters with other underscores, or at most a few edits
    /// away (about one per four letters); nil when none is that near.
    static func closestVariable(to name: String, among names: some Sequence<String>) -> String? {
        func letters(_ text: String) -> [UInt8] { Array(text.utf8.filter { $0 != UInt8(ascii: "_") }.dropFirst(4)) }
        let target = letters(name)
        guard !target.isEmpty, target.count <= 100 else { return nil }
        let allowed = max(1, target.count / 4)
        var best: (name: String, distance: Int)?
        for candidate in names.sorted() {
            let distance = editDistance(target, letters(candidate), bound: allowed)
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Edit distance between `a` and `b` (insertions, deletions, substitutions and swaps of neighbours, each one
    /// edit), or `bound + 1` once it is sure to exceed `bound`.
    private static func editDistance(_ a: [UInt8], _ b: [UInt8], bound: Int) -> Int {
        guard abs(a.count - b.count) <= bound else { return bound + 1 }
        guard !a.isEmpty else { return b.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in stride(from: 1, through: b.count, by: 1) {
                var distance = min(
                    previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1), previous[j] + 1, current[j - 1] + 1)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    distance = min(distance, beforePrevious[j - 2] + 1)
                }
                current[j] = distance
                rowMinimum = min(rowMinimum, distance)
            }
            if rowMinimum > bound { return bound + 1 }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
