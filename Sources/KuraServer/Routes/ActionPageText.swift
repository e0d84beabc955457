import KuraMail

/// What the action page says, in each language it speaks. Every message is a sentence; error codes are shown only
/// in small print, for support.
struct ActionPageText: Sendable {
    let language: MailLanguage

    private func pick(_ english: String, _ japanese: String) -> String {
        language == .japanese ? japanese : english
    }

    var otherLanguageName: String { language == .japanese ? "English" : "日本語" }
    var otherLanguage: MailLanguage { language == .japanese ? .english : .japanese }
    var languageSwitchLabel: String { pick("Language", "言語") }

    var confirmTitle: String { pick("Confirm your email", "メールアドレスの確認") }
    func confirmLead(_ email: String) -> String {
        pick(
            "Confirm that <strong>\(email.htmlEscaped)</strong> is your address.",
            "<strong>\(email.htmlEscaped)</strong> があなたのアドレスであることを確認します。")
    }
    var confirmButton: String { pick("Confirm my email", "確認する") }
    var confirmedTitle: String { pick("Email confirmed", "確認しました") }
    func confirmedLead(_ email: String) -> String {
        pick(
            "\(email.htmlEscaped) is confirmed. You can go back to the app.",
            "\(email.htmlEscaped) を確認しました。アプリに戻って続けてください。")
    }

    var resetTitle: String { pick("Choose a new password", "新しいパスワードを設定") }
    func resetLead(_ email: String) -> String {
        pick(
            "Choose a new password for <strong>\(email.htmlEscaped)</strong>.",
            "<strong>\(email.htmlEscaped)</strong> の新しいパスワードを決めてください。")
    }
    var passwordLabel: String { pick("New password", "新しいパスワード") }
    func passwordRules(_ minimum: Int) -> String {
        pick(
            "At least \(minimum) characters. After saving, you are signed out everywhere and sign in with the new one.",
            "\(minimum)文字以上にしてください。保存すると、すべての端末でログアウトされます。新しいパスワードでログインし直してください。")
    }
    var show: String { pick("Show", "表示") }
    var hide: String { pick("Hide", "隠す") }
    var showLabel: String { pick("Show the password", "パスワードを表示") }
    var saveButton: String { pick("Save the new password", "パスワードを保存") }
    var changedTitle: String { pick("Password changed", "パスワードを変更しました") }
    var changedLead: String {
        pick(
            "Your password is changed. Sign in with the new one.",
            "パスワードを変更しました。新しいパスワードでログインしてください。")
    }

    var unusableTitle: String { pick("This link can no longer be used", "このリンクは使えません") }
    var incompleteTitle: String { pick("This link is not complete", "リンクが正しくありません") }
    var incompleteLead: String {
        pick(
            "The address in your browser is missing part of the link. Open the link from the mail again, or copy all of it.",
            "ブラウザーのアドレスにリンクの一部しかありません。メールのリンクをもう一度開くか、全体をコピーしてください。")
    }
    var failedTitle: String { pick("That did not work", "うまくいきませんでした") }
    var askAgain: String {
        pick("Ask the app for a new mail, then use the newest link.", "アプリから新しいメールを送り、いちばん新しいリンクを開いてください。")
    }

    /// The sentence for an error the action calls throw.
    func explain(_ code: String, minimumPassword: Int) -> String {
        switch code {
        case "INVALID_OOB_CODE":
            pick(
                "The link was already used, a newer mail replaced it, or part of it is missing.",
                "このリンクはすでに使われたか、新しいメールで置き換えられたか、一部が欠けています。")
        case "EXPIRED_OOB_CODE":
            pick(
                "The link has expired: a link for a new password works for one hour, a link to confirm an address for 24 hours.",
                "リンクの有効期限が切れています。パスワード再設定のリンクは1時間、アドレス確認のリンクは24時間有効です。")
        case "USER_DISABLED":
            pick("This account is disabled. Ask the app's operator for help.", "このアカウントは無効になっています。運営者にお問い合わせください。")
        case "WEAK_PASSWORD", "MISSING_PASSWORD":
            pick(
                "The password is too short: use at least \(minimumPassword) characters.",
                "パスワードが短すぎます。\(minimumPassword)文字以上にしてください。")
        case "INVALID_ARGUMENT":
            pick("The password is too long.", "パスワードが長すぎます。")
        default:
            pick("Something went wrong on the server. Try again in a moment.", "サーバーで問題が起きました。少し待ってからもう一度お試しください。")
        }
    }

    func errorCode(_ code: String) -> String { pick("Error code: \(code)", "エラーコード: \(code)") }
    var backToApp: String { pick("Back to the app", "アプリに戻る") }
    var closeHint: String { pick("You can close this page now.", "このページは閉じてかまいません。") }
}
