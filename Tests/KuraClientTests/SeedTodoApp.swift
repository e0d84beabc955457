import Foundation
import KuraClient
import KuraServerTestSupport

// The to-do app of seed article 003 (Firebase Auth + Realtime Database), its Firebase code kept as written and
// only the imports changed (`FirebaseAuth`, `FirebaseDatabase`, `Firebase` → `KuraClient`). UIKit is replaced by
// `TodoUI`: alerts and segues are recorded, text fields are parameters, `tableView.reloadData()` records the
// rows, and `deinit` became `stopObserving()` (a main-actor class cannot touch its state in `deinit`). Driven by
// SeedAppTests.

/// What the screens showed.
@MainActor final class TodoUI {
    var events: [String] = []
    var rows: [String] = []
    /// Callbacks that reached the UI off the main queue (Firebase calls them on the main queue).
    var offMainQueue = 0

    func showAlert(_ message: String) { record("alert: \(message)") }
    func performSegue(withIdentifier identifier: String, sender: Any?) { record("segue: \(identifier)") }
    func reloadData(_ titles: [String]) {
        rows = titles
        record("reloadData")
    }
    private func record(_ event: String) {
        if !isOnMainQueue() { offMainQueue += 1 }
        events.append(event)
    }
}

/// Item.swift.
class Item {
    var ref: DatabaseReference?
    var title: String?

    init(snapshot: DataSnapshot) {
        ref = snapshot.ref

        let date = snapshot.value as! [String: String]
        title = date["title"]! as String
    }
}

/// LoginViewController.swift.
@MainActor final class LoginViewController {
    let ui: TodoUI
    init(ui: TodoUI) { self.ui = ui }

    func viewDidAppear() {
        if let _ = Auth.auth().currentUser {
            self.signIn()
        }
    }

    func didTapSignIn(email: String?, password: String?) {
        Auth.auth().signIn(
            withEmail: email!, password: password!,
            completion: { (user, error) in
                guard let _ = user else {
                    if let error = error {
                        if let errCode = AuthErrorCode(rawValue: error._code) {
                            switch errCode {
                            case .invalidEmail:
                                self.showAlert("User account not found. Try registering")
                            case .wrongPassword:
                                self.showAlert("Incorrect username/password combination")
                            default:
                                self.showAlert("Error:\(error.localizedDescription)")
                            }
                        }
                        return
                    }
                    return assertionFailure("user and error are nil")
                }
                self.signIn()
            })
    }

    func didRequestPasswordReset(userInput: String?) {
        if userInput!.isEmpty {
            return
        }
        Auth.auth().sendPasswordReset(
            withEmail: userInput!,
            completion: { (error) in
                if let error = error {
                    if let errCode = AuthErrorCode(rawValue: error._code) {
                        switch errCode {
                        case .userNotFound:
                            DispatchQueue.main.async {
                                self.showAlert("User account not found. Try registering")
                            }
                        default:
                            DispatchQueue.main.async {
                                self.showAlert("Error: \(error.localizedDescription)")
                            }
                        }
                    }
                    return
                } else {
                    DispatchQueue.main.async {
                        self.showAlert("You'll receive an email shortly to reset your password.")
                    }
                }
            })
    }

    func showAlert(_ message: String) { ui.showAlert(message) }
    func signIn() { ui.performSegue(withIdentifier: "SignInFromLogin", sender: nil) }
}

/// SignUpViewController.swift.
@MainActor final class SignUpViewController {
    let ui: TodoUI
    init(ui: TodoUI) { self.ui = ui }

    func didTapSignUp(email: String?, password: String?) {
        Auth.auth().createUser(
            withEmail: email!, password: password!,
            completion: { (user, error) in
                if let error = error {
                    if let errCode = AuthErrorCode(rawValue: error._code) {
                        switch errCode {
                        case .invalidEmail:
                            self.showAlert("Enter a valid email.")
                        case .emailAlreadyInUse:
                            self.showAlert("Email already in use.")
                        default:
                            self.showAlert("Error: \(error.localizedDescription)")
                        }
                    }
                    return
                }
                self.signIn()
            })
    }

    func showAlert(_ message: String) { ui.showAlert(message) }
    func signIn() { ui.performSegue(withIdentifier: "SignInFromSignUp", sender: nil) }
}

/// ItemsTableViewController.swift.
@MainActor final class ItemsTableViewController {
    let ui: TodoUI
    var user: User!
    var items = [Item]()
    var ref: DatabaseReference!
    private var databaseHandle: DatabaseHandle!

    init(ui: TodoUI) { self.ui = ui }

    func viewDidLoad() {
        self.user = Auth.auth().currentUser
        ref = Database.database().reference()
        startObservingDatabase()
    }

    /// tableView(_:commit:forRowAt:) with `.delete`.
    func commitDelete(row: Int) {
        let item = items[row]
        item.ref?.removeValue()
    }

    func didTapSignOut() {
        do {
            try Auth.auth().signOut()
            ui.performSegue(withIdentifier: "SignOut", sender: nil)
        } catch let error {
            assertionFailure("Error signing out: \(error)")
        }
    }

    /// The OK action of the "To Do Item" prompt.
    func didTapAddItem(userInput: String?) {
        if userInput!.isEmpty {
            return
        }
        self.ref.child("users").child(self.user.uid).child("items").childByAutoId().child("title").setValue(userInput)
    }

    func startObservingDatabase() {
        databaseHandle = ref.child("users/\(self.user.uid)/items").observe(
            .value,
            with: { (snapshot) in
                var newItems = [Item]()
                for ItemSnapShot in snapshot.children {
                    let item = Item(snapshot: ItemSnapShot as! DataSnapshot)
                    newItems.append(item)
                }
                self.items = newItems
                self.ui.reloadData(newItems.map { $0.title ?? "" })  // self.tableView.reloadData()
            })
    }

    func stopObserving() {
        ref.child("users/\(self.user.uid)/items").removeObserver(withHandle: databaseHandle)
    }
}
