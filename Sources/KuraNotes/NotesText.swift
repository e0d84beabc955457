import Foundation

/// The notebooks app's text rules, shared with its web app (apps/notes/web/logic.js; apps/notes/cases.json pins
/// both): one normalization for search and for notebook names, the name key that keeps names unique, the checks on
/// names and words, and the search itself. No network and no terminal: an iOS app reuses it as it is.
public enum NotesText {
    /// The white space that is trimmed and collapsed (the same set as `SPACE` in logic.js).
    static let whitespace: Set<Unicode.Scalar> = {
        var set: Set<Unicode.Scalar> = ["\t", "\n", "\u{0B}", "\u{0C}", "\r", " ", "\u{85}", "\u{A0}", "\u{1680}"]
        for value in 0x2000...0x200A { set.insert(Unicode.Scalar(UInt32(value))!) }
        for value: UInt32 in [0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF] { set.insert(Unicode.Scalar(value)!) }
        return set
    }()

    /// The longest notebook name, word and explanation, in Unicode scalars.
    public static let nameLimit = 100
    public static let wordLimit = 200
    public static let explanationLimit = 2000

    /// `text` without leading and trailing white space.
    public static func trimSpace(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { !whitespace.contains($0) }),
            let last = scalars.lastIndex(where: { !whitespace.contains($0) })
        else { return "" }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[first...last])
        return String(view)
    }

    /// The one normalization: compatibility forms (NFKC: full-width Latin and digits, half-width katakana), lower
    /// case, katakana as hiragana, white space trimmed and collapsed to one space. Search compares normalized text;
    /// two notebook names are the same name when they normalize alike.
    public static func normalize(_ text: String) -> String {
        let folded = text.precomposedStringWithCompatibilityMapping.lowercased()
        var view = String.UnicodeScalarView()
        var space = false
        for scalar in folded.unicodeScalars {
            if whitespace.contains(scalar) {
                space = true
                continue
            }
            if space && !view.isEmpty { view.append(" ") }
            space = false
            switch scalar.value {
            case 0x30A1...0x30F6, 0x30FD, 0x30FE: view.append(Unicode.Scalar(scalar.value - 0x60)!)
            default: view.append(scalar)
            }
        }
        return String(view)
    }

    /// What is wrong with a notebook name.
    public enum NameProblem: String, Sendable, Equatable {
        case blank, tooLong
    }

    /// What is wrong with `name` (trimmed), or `nil` when it can be a notebook's name.
    public static func nameProblem(_ name: String) -> NameProblem? {
        let trimmed = trimSpace(name)
        if trimmed.isEmpty { return .blank }
        if trimmed.unicodeScalars.count > nameLimit { return .tooLong }
        return nil
    }

    /// The document ID standing for `name` among a user's notebooks (`notes/{uid}/notebookNames/{key}`): the name
    /// normalized, `%` and `/` percent-encoded, a leading `.` or `__` escaped, so that every name is a valid ID.
    public static func nameKey(_ name: String) -> String {
        var key = normalize(name).replacingOccurrences(of: "%", with: "%25")
            .replacingOccurrences(of: "/", with: "%2F")
        if key.hasPrefix(".") { key = "%2E" + key.dropFirst() }
        if key.hasPrefix("__") { key = "%5F" + key.dropFirst() }
        return key
    }

    /// What is wrong with a word and its explanation.
    public enum WordProblem: String, Sendable, Equatable {
        case blankWord, wordTooLong, explanationTooLong
    }

    /// What is wrong with `word` and `explanation` (trimmed), or `nil`.
    public static func wordProblem(word: String, explanation: String) -> WordProblem? {
        let trimmed = trimSpace(word)
        if trimmed.isEmpty { return .blankWord }
        if trimmed.unicodeScalars.count > wordLimit { return .wordTooLong }
        if trimSpace(explanation).unicodeScalars.count > explanationLimit { return .explanationTooLong }
        return nil
    }

    /// The words in one of `notebooks` (every notebook when empty) whose word or explanation contains the
    /// normalized `text` (every word when it is blank), in their order.
    public static func search(_ words: [Word], text: String, notebooks: [String] = []) -> [Word] {
        let needle = normalize(text)
        return words.filter { word in
            (notebooks.isEmpty || notebooks.contains(word.notebook))
                && (needle.isEmpty || normalize(word.word).contains(needle)
                    || normalize(word.explanation).contains(needle))
        }
    }

    /// The notebook a search field's text names, to become a token: the one whose name normalizes like `text`, else
    /// the only one whose normalized name starts with it; `nil` when none or several do.
    public static func notebookForToken(_ notebooks: [Notebook], text: String) -> Notebook? {
        let needle = normalize(text)
        if needle.isEmpty { return nil }
        if let exact = notebooks.first(where: { normalize($0.name) == needle }) { return exact }
        let starts = notebooks.filter { normalize($0.name).hasPrefix(needle) }
        return starts.count == 1 ? starts[0] : nil
    }

    /// How deleting a notebook with `words` words goes: one atomic commit when they, the notebook and its name key
    /// fit in `limit` writes; else this many commits, the words first and the notebook last.
    public struct DeletePlan: Sendable, Equatable {
        public var atomic: Bool
        public var commits: Int

        public init(atomic: Bool, commits: Int) {
            self.atomic = atomic
            self.commits = commits
        }
    }

    public static func deletePlan(words: Int, limit: Int = 500) -> DeletePlan {
        let writes = words + 2
        return DeletePlan(atomic: writes <= limit, commits: max(1, (writes + limit - 1) / limit))
    }
}

/// A notebook: `notes/{uid}/notebooks/{id}`.
public struct Notebook: Sendable, Equatable {
    public var id: String
    public var name: String
    public var nameKey: String
    public var createdAt: String

    public init(id: String, name: String, nameKey: String? = nil, createdAt: String = "") {
        self.id = id
        self.name = name
        self.nameKey = nameKey ?? NotesText.nameKey(name)
        self.createdAt = createdAt
    }
}

/// A word and its explanation: `notes/{uid}/words/{id}`, in the notebook `notebook`.
public struct Word: Sendable, Equatable {
    public var id: String
    public var notebook: String
    public var word: String
    public var explanation: String
    public var createdAt: String

    public init(id: String, notebook: String, word: String, explanation: String, createdAt: String = "") {
        self.id = id
        self.notebook = notebook
        self.word = word
        self.explanation = explanation
        self.createdAt = createdAt
    }
}
