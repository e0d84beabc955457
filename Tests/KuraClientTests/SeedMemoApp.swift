import Foundation
import KuraClient
import KuraServerTestSupport

// The memo ("備忘録") app of seed article 000 (Firebase Auth + Firestore), its Firebase code kept as written and
// only the imports changed: `import Firebase`, `FirebaseAuth`, `FirebaseFirestore` → `import KuraClient`. UIKit is
// replaced by `MemoUI`: an alert or a segue is recorded instead of shown, text fields are parameters. Driven by
// SeedAppTests.

/// What the screens showed: alerts (by title), segues (by identifier), navigation pops; and the signed-in user the
/// segue to the main view carried (`prepare(for:sender:)`).
@MainActor final class MemoUI {
    var events: [String] = []
    var me: AppUser?
    /// Callbacks that reached the UI off the main queue (Firebase calls them on the main queue).
    var offMainQueue = 0

    func showAlert(_ title: String) { record("alert: \(title)") }
    func performSegue(withIdentifier identifier: String, sender: Any?) {
        record("segue: \(identifier)")
        // prepare(for:sender:) of StartViewController and LogInViewController:
        if identifier == "toMainView" {
            let user = sender as! User
            me = AppUser(data: ["userId": user.uid])
        }
    }
    func popViewController() { record("pop") }
    func record(_ event: String) {
        if !isOnMainQueue() { offMainQueue += 1 }
        events.append(event)
    }
}

/// User.swift of the article.
struct AppUser {
    let userId: String

    init(data: [String: Any]) {
        userId = data["userId"] as! String
    }
}

/// StartViewController: the first screen.
@MainActor final class StartViewController {
    let ui: MemoUI
    var auth: Auth!

    init(ui: MemoUI) {
        self.ui = ui
        auth = Auth.auth()  // viewDidLoad
    }

    func startButtonPushed() {
        if auth.currentUser != nil {
            auth.currentUser?.reload(completion: { error in
                if error == nil {
                    if self.auth.currentUser?.isEmailVerified == true {
                        self.ui.performSegue(withIdentifier: "toMainView", sender: self.auth.currentUser!)
                    } else if self.auth.currentUser?.isEmailVerified == false {
                        self.ui.showAlert("確認用メールを送信しているので確認をお願いします。")
                    }
                }
            })
        } else if auth.currentUser == nil {
            ui.performSegue(withIdentifier: "toLogInView", sender: nil)
        }
    }
}

/// LogInViewController.
@MainActor final class LogInViewController {
    let ui: MemoUI
    init(ui: MemoUI) { self.ui = ui }

    func logInButtonPushed(mail: String, password: String) {
        Auth.auth().signIn(withEmail: mail, password: password) { (result, error) in
            if error == nil, let result = result, result.user.isEmailVerified {
                self.ui.performSegue(withIdentifier: "toMainView", sender: result.user)
            } else if error != nil {
                self.ui.showAlert("ログインエラー")
            }
        }
    }
}

/// RegisterViewController.
@MainActor final class RegisterViewController {
    let ui: MemoUI
    var auth: Auth!

    init(ui: MemoUI) {
        self.ui = ui
        auth = Auth.auth()
    }

    func registerButtonPushed(userMail: String, userPassword: String) {
        if userPassword.count < 6 {
            ui.showAlert("パスワードエラー")
        }
        auth.createUser(withEmail: userMail, password: userPassword) { (result, error) in
            if error == nil, let result = result {
                result.user.sendEmailVerification(completion: { (error) in
                    if error == nil {
                        self.ui.showAlert("仮登録を行いました。")
                    }
                })
            } else if error != nil {
                self.ui.showAlert("登録エラー")
            }
        }
    }
}

/// ViewController: the list of memo books ("dictionaries"), with search and delete.
@MainActor final class MemoListViewController {
    let ui: MemoUI
    var dictionary: [String: [String: String]] = [:]
    var me: AppUser!
    var database: Firestore!
    var searchResult: [String]!
    var dictionaries: [String] = []
    var searchText = ""

    init(ui: MemoUI, me: AppUser) {
        self.ui = ui
        self.me = me
        database = Firestore.firestore()
    }

    func viewWillAppear() {
        database.collection(me.userId).getDocuments { (snapshot, error) in
            if error == nil, let snapshot = snapshot {
                for document in snapshot.documents {
                    let data = document.data()
                    let dictionaryName = data["dictionaryName"]
                    let dictionaryWord = data["dictionaryWord"]
                    self.dictionary.updateValue(
                        dictionaryWord as! [String: String], forKey: dictionaryName as! String)
                    let keys = Array(self.dictionary.keys)
                    self.dictionaries = []
                    for key in keys {
                        self.dictionaries.append(key)
                    }
                }
                self.ui.record("reloadData")  // self.dictionaryList.reloadData()
            }
        }
    }

    func searchBarSearchButtonClicked(_ text: String) {
        searchText = text
        self.searchResult = dictionaries.filter {
            $0.lowercased().contains(text.lowercased())
        }
    }

    /// tableView(_:commit:forRowAt:) after the "OK" of the confirmation alert.
    func delete(row: Int) {
        if self.searchText == "" {
            self.dictionaries.remove(at: row)
            let keys = Array(self.dictionary.keys)
            self.dictionary[keys[row]] = nil
            self.database.collection(self.me.userId).document(keys[row]).delete()
        } else {
            if let index = self.dictionaries.firstIndex(of: self.searchResult[row]) {
                self.dictionaries.remove(at: index)
            }
            self.dictionary[self.searchResult[row]] = nil
            self.database.collection(self.me.userId).document(self.searchResult[row]).delete()
            self.searchResult.remove(at: row)
        }
    }

    func logOut() {
        try? Auth.auth().signOut()
        ui.events.append("logged out")
    }
}

/// AddDictionaryViewController: adds a memo book.
@MainActor final class AddDictionaryViewController {
    let ui: MemoUI
    var database: Firestore!
    var me: AppUser!
    var allData: [String] = []

    init(ui: MemoUI, me: AppUser) {
        self.ui = ui
        self.me = me
        database = Firestore.firestore()
    }

    func addDictionary(_ dictionaryName: String) {
        database.collection(me.userId).getDocuments { (snapshot, error) in
            if error == nil, let snapshot = snapshot {
                self.allData = []
                for documet in snapshot.documents {
                    let data = documet.data()
                    self.allData.append(data["dictionaryName"] as! String)
                }
                if self.allData.contains(dictionaryName) || dictionaryName == "" {
                    self.ui.showAlert("追加エラー")
                } else {
                    let saveDocument = self.database.collection(self.me.userId).document(dictionaryName)
                    saveDocument.setData([
                        "dictionaryName": dictionaryName,
                        "dictionaryWord": [:] as! [String: String],
                    ]) { error in
                        if error == nil {
                            self.ui.popViewController()
                        }
                    }
                }
            }
        }
    }
}

/// AddDictionaryWordViewController: adds a word and its explanation to a memo book.
@MainActor final class AddDictionaryWordViewController {
    let ui: MemoUI
    var dictionaryName: String!
    var me: AppUser!
    var database: Firestore!
    var dictionaryWords: [String: String]!
    var allData: [String]!

    init(ui: MemoUI, me: AppUser, dictionaryName: String, words: [String: String]) {
        self.ui = ui
        self.me = me
        self.dictionaryName = dictionaryName
        self.dictionaryWords = words
        database = Firestore.firestore()
    }

    func addButtonPushed(wordName: String, wordExplanation: String) {
        database.collection(me.userId).document(dictionaryName).getDocument { (document, error) in
            if error == nil, let document = document {
                let data = document.data()!
                let words = data["dictionaryWord"] as! [String: String]
                self.allData = Array(words.keys)
            }
            if self.allData.contains(wordName) || wordName == "" {
                self.ui.showAlert("同じ名前の辞書は追加できません。")
            } else {
                let saveDocument = self.database.collection(self.me.userId).document(self.dictionaryName)
                self.dictionaryWords.updateValue(wordExplanation, forKey: wordName)
                saveDocument.setData([
                    "dictionaryName": self.dictionaryName!,
                    "dictionaryWord": self.dictionaryWords!,
                ]) { error in
                    if error == nil {
                        self.ui.popViewController()
                    }
                }
            }
        }
    }
}
