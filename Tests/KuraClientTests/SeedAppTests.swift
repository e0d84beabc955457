import Foundation
import KuraClient
import KuraTestSupport
import Testing

/// The seed apps' Firebase code (SeedMemoApp.swift, SeedTodoApp.swift), compiled against `KuraClient` and run
/// against a real server, as their users would use them. Serialized: the apps use the process-wide default
/// client (`Auth.auth()`, `Firestore.firestore()`, `Database.database()`), which each test configures.
@Suite(.serialized) struct SeedAppTests {
    /// The memo app keeps each user's memo books in a top-level collection named by the uid.
    static let memoRules = """
        rules_version = '1';
        match /{uid}/{name} {
          allow read, write: if request.auth != null && request.auth.uid == uid;
        }
        match /users/{uid}/{rest=**} {
          allow read, write: if request.auth != null && request.auth.uid == uid;
        }
        """

    /// Waits (on the main actor, so main-queue callbacks keep running) until `condition` holds.
    @MainActor func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @MainActor @Test func memoApp() async throws {
        let server = try await testServer(rules: Self.memoRules)
        try await shuttingDown(server) {
            Kura.configure(url: server.url, settings: .init(session: .memory))
            let ui = MemoUI()
            let mail = uniqueEmail("memo")

            StartViewController(ui: ui).startButtonPushed()
            #expect(ui.events == ["segue: toLogInView"])

            // A short password: the app's own alert, then the server's refusal.
            RegisterViewController(ui: ui).registerButtonPushed(userMail: mail, userPassword: "abc")
            try await waitUntil("登録エラー") { ui.events.contains("alert: 登録エラー") }
            #expect(ui.events.suffix(2) == ["alert: パスワードエラー", "alert: 登録エラー"])

            RegisterViewController(ui: ui).registerButtonPushed(userMail: mail, userPassword: "secret-pw")
            try await waitUntil("仮登録") { ui.events.last == "alert: 仮登録を行いました。" }
            // createUser + sendEmailVerification: one mail (the server's sign-up mail), not two.
            #expect(try await server.mails(to: mail, atLeast: 1).count == 1)

            // Not verified yet: the start screen asks to confirm the address.
            StartViewController(ui: ui).startButtonPushed()
            try await waitUntil("unverified alert") { ui.events.last?.hasPrefix("alert: 確認用メール") == true }
            // Signing in works but the app stays (it only moves on for verified users).
            LogInViewController(ui: ui).logInButtonPushed(mail: mail, password: "wrong-pw")
            try await waitUntil("ログインエラー") { ui.events.last == "alert: ログインエラー" }

            let code = try #require(try await server.actionCode(to: mail, mode: "verifyEmail"))
            try await Auth.auth().applyActionCode(code)
            StartViewController(ui: ui).startButtonPushed()
            try await waitUntil("toMainView") { ui.events.last == "segue: toMainView" }
            let uid = try #require(Auth.auth().currentUser?.uid)
            let me = try #require(ui.me)
            #expect(me.userId == uid)

            let addBook = AddDictionaryViewController(ui: ui, me: me)
            for name in ["Python", "Python", "", "Swift"] {
                let count = ui.events.count
                addBook.addDictionary(name)
                try await waitUntil("adding '\(name)'") { ui.events.count > count }
            }
            #expect(ui.events.suffix(4) == ["pop", "alert: 追加エラー", "alert: 追加エラー", "pop"])
            let stored = try #require(try await server.document("\(uid)/Python"))
            #expect(stored["dictionaryName"] as? String == "Python")
            #expect((stored["dictionaryWord"] as? [String: Any])?.isEmpty == true)

            let addWord = AddDictionaryWordViewController(ui: ui, me: me, dictionaryName: "Python", words: [:])
            let before = ui.events.count
            addWord.addButtonPushed(wordName: "print", wordExplanation: "prints a line")
            try await waitUntil("word added") { ui.events.count > before }
            #expect(ui.events.last == "pop")
            addWord.addButtonPushed(wordName: "print", wordExplanation: "again")
            try await waitUntil("duplicate word") { ui.events.last == "alert: 同じ名前の辞書は追加できません。" }

            let list = MemoListViewController(ui: ui, me: me)
            list.viewWillAppear()
            try await waitUntil("list") { ui.events.last == "reloadData" }
            #expect(list.dictionaries.sorted() == ["Python", "Swift"])
            #expect(list.dictionary["Python"] == ["print": "prints a line"])
            #expect(list.dictionary["Swift"] == [:])

            list.searchBarSearchButtonClicked("SWI")
            #expect(list.searchResult == ["Swift"])
            list.delete(row: 0)
            var deleted = false
            for _ in 0..<500 where !deleted {
                deleted = try await server.document("\(uid)/Swift") == nil
                if !deleted { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(deleted)
            #expect(try await server.document("\(uid)/Python") != nil)

            list.logOut()
            #expect(Auth.auth().currentUser == nil)
            // Signed out, the rules refuse the user's data.
            let refused = Shared<(any Error)?>(nil)
            Firestore.firestore().collection(uid).getDocuments { _, error in refused.withLock { $0 = error } }
            try await waitUntil("refusal") { refused.current != nil }
            #expect((refused.current as? KuraError)?.firestoreErrorCode == .permissionDenied)
            #expect(ui.offMainQueue == 0)
        }
    }

    @MainActor @Test func todoApp() async throws {
        let server = try await testServer()
        try await shuttingDown(server) {
            Kura.configure(url: server.url, settings: .init(session: .memory))
            let ui = TodoUI()
            let mail = uniqueEmail("todo")

            LoginViewController(ui: ui).viewDidAppear()
            #expect(ui.events.isEmpty)

            SignUpViewController(ui: ui).didTapSignUp(email: "not-an-address", password: "secret-pw")
            try await waitUntil("invalid email") { ui.events.last == "alert: Enter a valid email." }
            SignUpViewController(ui: ui).didTapSignUp(email: mail, password: "secret-pw")
            try await waitUntil("signed up") { ui.events.last == "segue: SignInFromSignUp" }
            SignUpViewController(ui: ui).didTapSignUp(email: mail, password: "secret-pw")
            try await waitUntil("email in use") { ui.events.last == "alert: Email already in use." }
            let uid = try #require(Auth.auth().currentUser?.uid)

            let itemsScreen = ItemsTableViewController(ui: ui)
            itemsScreen.viewDidLoad()
            try await waitUntil("empty list") { ui.events.last == "reloadData" }
            #expect(ui.rows.isEmpty)
            itemsScreen.didTapAddItem(userInput: "")
            itemsScreen.didTapAddItem(userInput: "milk")
            try await waitUntil("milk") { ui.rows == ["milk"] }
            itemsScreen.didTapAddItem(userInput: "bread")
            try await waitUntil("bread") { ui.rows == ["milk", "bread"] }
            let stored = try #require(itemsScreen.items.last?.ref?.key)
            #expect(try await server.document("users/\(uid)/items/\(stored)")?["title"] as? String == "bread")

            itemsScreen.commitDelete(row: 0)
            try await waitUntil("deleted") { ui.rows == ["bread"] }

            itemsScreen.didTapSignOut()
            #expect(ui.events.last == "segue: SignOut")
            #expect(Auth.auth().currentUser == nil)
            itemsScreen.stopObserving()

            let login = LoginViewController(ui: ui)
            login.viewDidAppear()
            #expect(ui.events.last == "segue: SignOut")
            login.didTapSignIn(email: "bad address", password: "secret-pw")
            try await waitUntil("bad address") { ui.events.last == "alert: User account not found. Try registering" }
            // Kura does not say whether the address or the password was wrong: `.invalidCredential`, so the
            // article's `default:` branch shows the server's message.
            login.didTapSignIn(email: mail, password: "wrong-pw")
            try await waitUntil("wrong password") { ui.events.last?.hasPrefix("alert: Error:") == true }
            #expect(ui.events.last?.contains("KuraError") == false)
            #expect(ui.events.last?.contains("password") == true)

            login.didRequestPasswordReset(userInput: mail)
            try await waitUntil("reset") {
                ui.events.last == "alert: You'll receive an email shortly to reset your password."
            }
            let code = try #require(try await server.actionCode(to: mail, mode: "resetPassword"))
            try await Auth.auth().confirmPasswordReset(withCode: code, newPassword: "new-secret")
            login.didTapSignIn(email: mail, password: "new-secret")
            try await waitUntil("signed in") { ui.events.last == "segue: SignInFromLogin" }

            // A new screen sees the remaining item; "relaunching" the login screen goes straight in.
            let again = ItemsTableViewController(ui: ui)
            again.viewDidLoad()
            try await waitUntil("remaining item") { ui.rows == ["bread"] && ui.events.last == "reloadData" }
            again.stopObserving()
            login.viewDidAppear()
            #expect(ui.events.last == "segue: SignInFromLogin")
            #expect(ui.offMainQueue == 0)
        }
    }
}
