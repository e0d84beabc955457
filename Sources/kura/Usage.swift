import KuraServer

/// The help texts: `kura --help` for the whole tool, and one per subcommand for `kura COMMAND --help`.
enum Usage {
    static let options = """
        Options:
          --host ADDR          address to listen on (default 127.0.0.1)
          --port N             TCP port (default 8090; 0 picks a free one)
          --data DIR           data directory (default ./kura_data)
          --public DIR         serve the static files under DIR (hosting.root; docs/api.md, "Static hosting")
          --log-level LEVEL    debug, info, warn or error (default info)
          --config FILE        a JSON config file (also KURA_CONFIG)
          --set KEY=VALUE      any setting below
          -h, --help           this help
        """

    /// Every setting on two lines: its key and environment variable, then what it does.
    static var settings: String {
        let width = KuraConfiguration.settings.map(\.key.count).max() ?? 0
        let lines = KuraConfiguration.settings.map { setting in
            "  " + setting.key + String(repeating: " ", count: width - setting.key.count + 2)
                + setting.environmentName + "\n      " + setting.help
        }
        return """
            Settings (config file key, environment variable, then what it does):
            \(lines.joined(separator: "\n"))

            Precedence: flags > environment > config file (--config or KURA_CONFIG) > defaults.
            """
    }

    static let tool = """
        Kura \(KuraNode.version): a self-hosted backend for app developers.

        Usage:
          kura serve [OPTIONS]          serve the API (default http://127.0.0.1:8090, data in ./kura_data)
          kura backup DIR [OPTIONS]     copy the data directory (databases, keys, rules) to DIR, even while serving
          kura doctor [--json] [--full] [OPTIONS]
                                        check a data directory or database; exits 0 ok, 1 warnings, 2 failures
          kura export FILE [OPTIONS]    write documents, accounts, indexes and rules to FILE as NDJSON (- : stdout)
          kura import FILE [--merge] [--batch N] [OPTIONS]
                                        load an export into an empty data directory or database
          kura rules test TABLE [--rules FILE]
                                        run a rules test table (docs/rules.md); exits 1 if a case fails
          kura admin create-user --email ADDRESS [--password-stdin | --password PASSWORD] [--admin] [OPTIONS]
                                        create a verified account
          kura admin rotate-keys [OPTIONS]
                                        make a new ID-token signing key
          kura --version
          kura --help                   this help; `kura COMMAND --help` for one command
        """ + "\n\n" + options + "\n\n" + settings

    static let serve = """
        Usage: kura serve [OPTIONS] [--dev]

        Serves the API, the realtime listeners and the action pages until SIGINT or SIGTERM.

          --dev                the development loop: auth rate limits off, held mails printed here in full,
                               unexpected errors explained in their answers; serves loopback addresses only
        """ + "\n\n" + options + "\n\n" + settings

    static let backup = """
        Usage: kura backup DIR [OPTIONS]

        Writes a copy of the data directory to the new directory DIR, also while `kura serve` runs on it: the
        databases (documents.db, accounts.db, mail.db), each from one snapshot taken before any copying starts, so
        every write acknowledged before the backup started is in the copy; and admin.key, auth-signing-keys.json
        (issued ID tokens stay valid), kura.rules, kura.indexes.json and rules-history/. DIR must not exist (or be
        empty) and must lie outside the data directory; it is mode 0700, its files 0600. Restore with
        `kura serve --data DIR`, or stop the server and move DIR into the data directory's place.
        PostgreSQL (store.engine = postgres): use pg_dump and pg_restore (docs/reliability.md).
        """ + "\n\n" + options

    static let doctor = """
        Usage: kura doctor [--json] [--full] [OPTIONS]

        Checks the data directory (or, with store.engine = postgres, the database) and prints one line per check:
        OK, WARN or FAIL, and what to fix. Checks: the data directory (exists, owner, permissions), whether a server
        holds it, each database's integrity (PRAGMA quick_check) or the PostgreSQL schema version, the rules file,
        composite indexes, failed mails in the outbox, the SMTP relay (connect and EHLO) when smtp.url is set, the
        clock, and free disk space. Runs beside a server (reads only).
        Exits 0 when every check is OK, 1 when one warns, 2 when one fails (and on a usage error).

          --json               one JSON object instead of lines: {"status", "checks": [{"check", "status",
                               "message", "fix"}]}
          --full               PRAGMA integrity_check instead of quick_check (also compares every index with its
                               table; reads more, takes longer)
        """ + "\n\n" + options

    static let export = """
        Usage: kura export FILE [OPTIONS]

        Writes every document (with its times and version), composite index definition, account (with its
        password hash, so users sign in again with the same password) and the security rules to FILE as NDJSON
        (docs/export-format.md); `-` writes to standard output. Reads through the engine store.engine names, from
        one snapshot taken at the start, also while `kura serve` runs. Sessions, refresh tokens, action codes,
        queued mails, signing keys and the admin key are not exported. FILE is created with mode 0600 and must
        lie outside the data directory.
        Moving an app between engines: docs/scaling.md.
        """ + "\n\n" + options

    static let importing = """
        Usage: kura import FILE [--merge] [--batch N] [OPTIONS]

        Loads an export (kura export) into the engine store.engine names, keeping document paths, times and
        versions, and account uids and password hashes, exactly. Checks every line first and imports nothing if
        one is wrong (the message names the line; exit 2), and then removes what it created. Account password
        hashes must be within the auth.argon2Max* bounds. The target must hold no documents and no accounts.
        No server may run on the data directory meanwhile.

          --merge              import into a target that holds data: records in FILE replace those with the same
                               document path or uid (a replaced account is signed out), the rest stays, and the
                               file's rules replace the target's
          --batch N            records per transaction, 1-500 (default 500)
        """ + "\n\n" + options

    static let rules = """
        Usage: kura rules test TABLE [--rules FILE]

        Runs a rules test table (docs/rules.md) against FILE, the table's own "rules" file, or the default rules,
        and prints one line per case. Exits 0 when every case passes, 1 when one fails, 2 on a usage error.

          --rules FILE         the rules to test
          -h, --help           this help
        """

    static let admin = """
        Usage:
          kura admin create-user --email ADDRESS [--password-stdin | --password PASSWORD] [--admin] [OPTIONS]
              creates a verified account; a random password is printed if none is given; --admin sets the admin
              claim
          kura admin rotate-keys [OPTIONS]
              makes a new ID-token signing key; older keys keep verifying until they age out (restart the server
              to sign with the new key)
        """ + "\n\n" + options

    static let createUser = """
        Usage: kura admin create-user --email ADDRESS [--password-stdin | --password PASSWORD] [--admin] [OPTIONS]

        Creates a verified account. A random password is printed if none is given; --admin sets the admin claim.

          --email ADDRESS      the account's address (required)
          --password-stdin     read its password from the first line of standard input
                               (`printf '%s\n' "$PW" | kura admin create-user --email … --password-stdin`)
          --password PASSWORD  its password; other users of this machine can read it in the process list, so
                               prefer --password-stdin (default: a random one, printed)
          --admin              give the account the admin claim
        """ + "\n\n" + options

    static let rotateKeys = """
        Usage: kura admin rotate-keys [OPTIONS]

        Makes a new ID-token signing key. Older keys keep verifying until they age out; restart the server to sign
        with the new key.
        """ + "\n\n" + options
}
