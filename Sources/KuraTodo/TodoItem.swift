import Foundation
import KuraClient

/// A to-do as stored at `users/{uid}/todos/{id}`: the layout the web app (apps/todo/web) and `kura-todo` share.
public struct TodoItem: Codable, Sendable, Equatable {
    /// The document ID.
    @DocumentID public var id: String?
    /// What needs doing (`TodoTitle.clean` made it).
    public var title: String
    /// Whether it is done.
    public var done: Bool
    /// When it was added: the server's time (an RFC 3339 string on the wire), set once.
    @ServerTimestamp public var createdAt: Date?

    /// A new, not done to-do; `createdAt` is filled in by the server.
    public init(title: String, done: Bool = false) {
        self.title = title
        self.done = done
    }
}

/// The rules for a to-do's title that the web app (`cleanTitle` in web/logic.js) applies too; apps/todo/cases.json
/// pins both.
public enum TodoTitle {
    /// The longest title in Unicode scalars, as todo.rules allows.
    public static let maxLength = 500

    /// Why a title was refused.
    public enum Problem: String, Error, Sendable, Equatable {
        /// Nothing but white space.
        case blank
        /// Longer than `maxLength`.
        case tooLong
    }

    /// The title to store for `text`: white space at both ends removed and each run of white space (line breaks
    /// too) made one space.
    public static func clean(_ text: String) -> Result<String, Problem> {
        var words: [Substring] = []
        var rest = Substring(text)
        while let start = rest.firstIndex(where: { !$0.isWhitespace }) {
            rest = rest[start...]
            let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
            words.append(rest[..<end])
            rest = rest[end...]
        }
        let title = words.joined(separator: " ")
        if title.isEmpty { return .failure(.blank) }
        if title.unicodeScalars.count > maxLength { return .failure(.tooLong) }
        return .success(title)
    }

    /// How many are left and how many are done.
    public static func counts(_ items: [TodoItem]) -> (open: Int, done: Int) {
        let done = items.count { $0.done }
        return (items.count - done, done)
    }
}
