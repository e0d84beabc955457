extension RuleSet {
    /// The rules a new server starts with (written to `<data>/kura.rules` on first start): users own
    /// `/users/{uid}/…`, quizzes are public to read and writable by admins (`token.admin == true`).
    public static let defaultSource = """
        rules_version = '1';

        // Signed in with any account.
        function signedIn() { return request.auth != null; }

        // Each user reads and writes only their own subtree.
        match /users/{uid}/{rest=**} {
          allow read, write: if signedIn() && request.auth.uid == uid;
        }

        // Anyone reads quizzes; only admins change them.
        match /quizzes/{id} {
          allow read: if true;
          allow create, update, delete: if request.auth.token.admin == true;
        }

        """

    /// The default rules compiled; the default source is known to be valid.
    public static let defaultRules: RuleSet = try! RuleSet.compile(source: defaultSource, fileName: "kura.rules")

    /// A `RulesTestTable` (JSON) for `defaultSource`: `kura rules test` runs it against the default rules.
    public static let defaultTestTable = """
        {
          "cases": [
            {"name": "owner reads own profile", "auth": {"uid": "alice"}, "method": "get",
             "path": "/users/alice", "expect": "allow"},
            {"name": "owner writes nested note", "auth": {"uid": "alice"}, "method": "create",
             "path": "/users/alice/notes/n1", "data": {"text": "hi"}, "expect": "allow"},
            {"name": "owner lists own notes", "auth": {"uid": "alice"}, "method": "list",
             "path": "/users/alice/notes/n2", "expect": "allow"},
            {"name": "other user cannot read", "auth": {"uid": "bob"}, "method": "get",
             "path": "/users/alice", "expect": "deny"},
            {"name": "other user cannot write", "auth": {"uid": "bob"}, "method": "update",
             "path": "/users/alice/notes/n1", "data": {"text": "x"}, "existing": {"text": "hi"}, "expect": "deny"},
            {"name": "signed out cannot read users", "auth": null, "method": "get",
             "path": "/users/alice", "expect": "deny"},
            {"name": "anyone reads quizzes", "auth": null, "method": "get", "path": "/quizzes/q1", "expect": "allow"},
            {"name": "anyone lists quizzes", "auth": null, "method": "list", "path": "/quizzes/q1", "expect": "allow"},
            {"name": "admin creates quiz", "auth": {"uid": "root", "token": {"admin": true}}, "method": "create",
             "path": "/quizzes/q2", "data": {"title": "T"}, "expect": "allow"},
            {"name": "non-admin cannot create quiz", "auth": {"uid": "alice"}, "method": "create",
             "path": "/quizzes/q2", "data": {"title": "T"}, "expect": "deny"},
            {"name": "signed out cannot delete quiz", "auth": null, "method": "delete",
             "path": "/quizzes/q1", "existing": {"title": "T"}, "expect": "deny"},
            {"name": "unmatched path denied", "auth": {"uid": "alice"}, "method": "get",
             "path": "/secrets/s1", "expect": "deny"}
          ]
        }
        """
}
