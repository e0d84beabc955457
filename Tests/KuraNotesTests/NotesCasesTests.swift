import Foundation
import KuraNotes
import Testing

/// apps/notes/cases.json, which the web app's logic.js runs too (Tests/Browser/suite_notes.py).
@Suite struct NotesCasesTests {
    struct Cases: Decodable {
        struct Normalize: Decodable {
            var text: String
            var normalized: String
        }
        struct Name: Decodable {
            var name: String
            var problem: String?
            var key: String?
        }
        struct Same: Decodable {
            var a: String
            var b: String
            var same: Bool
        }
        struct Search: Decodable {
            struct NotebookCase: Decodable {
                var id: String
                var name: String
            }
            struct WordCase: Decodable {
                var id: String
                var notebook: String
                var word: String
                var explanation: String
            }
            struct Query: Decodable {
                var text: String
                var notebooks: [String]
                var ids: [String]
            }
            struct Token: Decodable {
                var text: String
                var notebook: String?
            }
            var notebooks: [NotebookCase]
            var words: [WordCase]
            var cases: [Query]
            var tokens: [Token]
        }
        struct WordCheck: Decodable {
            var word: String
            var explanation: String
            var problem: String?
        }
        struct Plan: Decodable {
            var words: Int
            var limit: Int
            var atomic: Bool
            var commits: Int
        }
        var normalize: [Normalize]
        var names: [Name]
        var sameName: [Same]
        var search: Search
        var words: [WordCheck]
        var deletePlans: [Plan]
    }

    static let cases: Cases = {
        let data = try! Data(contentsOf: notesApp.appendingPathComponent("cases.json"))
        return try! JSONDecoder().decode(Cases.self, from: data)
    }()

    @Test func normalization() {
        for item in Self.cases.normalize {
            #expect(NotesText.normalize(item.text) == item.normalized, "\(item.text)")
        }
        #expect(Self.cases.normalize.count >= 10)
    }

    @Test func namesTheirProblemsAndKeys() {
        for item in Self.cases.names {
            let problem = NotesText.nameProblem(item.name)
            #expect(problem?.rawValue == item.problem, "\(item.name)")
            if problem == nil { #expect(NotesText.nameKey(item.name) == item.key, "\(item.name)") }
        }
        for item in Self.cases.sameName {
            #expect((NotesText.nameKey(item.a) == NotesText.nameKey(item.b)) == item.same, "\(item.a) / \(item.b)")
        }
    }

    @Test func searchAndTokens() {
        let search = Self.cases.search
        let words = search.words.map {
            Word(id: $0.id, notebook: $0.notebook, word: $0.word, explanation: $0.explanation)
        }
        for query in search.cases {
            let found = NotesText.search(words, text: query.text, notebooks: query.notebooks).map(\.id)
            #expect(found == query.ids, "\(query.text) in \(query.notebooks)")
        }
        let notebooks = search.notebooks.map { Notebook(id: $0.id, name: $0.name) }
        for token in search.tokens {
            #expect(NotesText.notebookForToken(notebooks, text: token.text)?.id == token.notebook, "\(token.text)")
        }
    }

    @Test func wordChecksAndDeletePlans() {
        for item in Self.cases.words {
            #expect(
                NotesText.wordProblem(word: item.word, explanation: item.explanation)?.rawValue == item.problem,
                "\(item.word.prefix(10))")
        }
        for plan in Self.cases.deletePlans {
            #expect(
                NotesText.deletePlan(words: plan.words, limit: plan.limit)
                    == .init(atomic: plan.atomic, commits: plan.commits), "\(plan.words)")
        }
    }
}
