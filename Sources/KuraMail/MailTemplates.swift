import KuraCore
import KuraModel

/// The account mails, in English and Japanese, each as plain text and HTML with the action link in both.
/// `appName`, the link and addresses are HTML-escaped in the HTML part.
public enum MailTemplates {
    /// Asks the owner of `to` to confirm the address by following `link`.
    public static func verification(to: String, link: String, appName: String, language: MailLanguage) -> MailMessage {
        let content: Content =
            switch language {
            case .english:
                Content(
                    subject: "Verify your email for \(appName)",
                    greeting: "Hello,",
                    lines: ["Follow this link to verify your email address."],
                    button: "Verify email address",
                    closing: "If you didn't ask to verify this address, you can ignore this email.",
                    signature: "Thanks,\nYour \(appName) team")
            case .japanese:
                Content(
                    subject: "\(appName) のメールアドレスを確認してください",
                    greeting: "こんにちは。",
                    lines: ["次のリンクからメールアドレスを確認してください。"],
                    button: "メールアドレスを確認する",
                    closing: "このメールに心当たりがない場合は、破棄してください。",
                    signature: "\(appName) チーム")
            }
        return content.message(to: to, link: link)
    }

    /// Offers the owner of `to` a `link` to choose a new password.
    public static func passwordReset(to: String, link: String, appName: String, language: MailLanguage) -> MailMessage {
        let content: Content =
            switch language {
            case .english:
                Content(
                    subject: "Reset your password for \(appName)",
                    greeting: "Hello,",
                    lines: ["Follow this link to reset your \(appName) password for your \(to) account."],
                    button: "Reset password",
                    closing: "If you didn't ask to reset your password, you can ignore this email.",
                    signature: "Thanks,\nYour \(appName) team")
            case .japanese:
                Content(
                    subject: "\(appName) のパスワードの再設定",
                    greeting: "こんにちは。",
                    lines: ["\(to) の \(appName) アカウントのパスワードを再設定するには、次のリンクを開いてください。"],
                    button: "パスワードを再設定する",
                    closing: "パスワードの再設定を依頼していない場合は、このメールを破棄してください。",
                    signature: "\(appName) チーム")
            }
        return content.message(to: to, link: link)
    }

    /// Sent to the new address `to`: following `link` confirms the change of the account's email from
    /// `previousEmail` (when known) to `to`.
    public static func emailChange(
        to: String, previousEmail: String? = nil, link: String, appName: String, language: MailLanguage
    ) -> MailMessage {
        let content: Content =
            switch language {
            case .english:
                Content(
                    subject: "Confirm your new email for \(appName)",
                    greeting: "Hello,",
                    lines: [
                        previousEmail.map { "Your \(appName) account's email is being changed from \($0) to \(to)." }
                            ?? "Your \(appName) account's email is being changed to \(to).",
                        "Follow this link to confirm the new address.",
                    ],
                    button: "Confirm new email",
                    closing: "If you didn't ask to change your email, you can ignore this email; nothing changes.",
                    signature: "Thanks,\nYour \(appName) team")
            case .japanese:
                Content(
                    subject: "\(appName) の新しいメールアドレスの確認",
                    greeting: "こんにちは。",
                    lines: [
                        previousEmail.map { "\(appName) アカウントのメールアドレスを \($0) から \(to) に変更しようとしています。" }
                            ?? "\(appName) アカウントのメールアドレスを \(to) に変更しようとしています。",
                        "次のリンクから新しいメールアドレスを確認してください。",
                    ],
                    button: "新しいメールアドレスを確認する",
                    closing: "心当たりがない場合は、このメールを破棄してください。変更は行われません。",
                    signature: "\(appName) チーム")
            }
        return content.message(to: to, link: link)
    }

    /// The words of one mail, laid out the same way as text and as HTML.
    private struct Content {
        var subject: String
        var greeting: String
        var lines: [String]
        var button: String
        var closing: String
        var signature: String

        func message(to: String, link: String) -> MailMessage {
            let text = ([greeting, ""] + lines + ["", link, "", closing, "", signature, ""]).joined(separator: "\n")
            let paragraphs = lines.map { "<p>\($0.htmlEscaped)</p>" }.joined(separator: "\n")
            let html = """
                <!DOCTYPE html>
                <html>
                <head><meta charset="utf-8"><title>\(subject.htmlEscaped)</title></head>
                <body style="font-family: sans-serif; line-height: 1.5;">
                <p>\(greeting.htmlEscaped)</p>
                \(paragraphs)
                <p><a href="\(link.htmlEscaped)">\(button.htmlEscaped)</a></p>
                <p style="word-break: break-all; color: #555;">\(link.htmlEscaped)</p>
                <p>\(closing.htmlEscaped)</p>
                <p>\(signature.htmlEscaped.replacingAll("\n", with: "<br>"))</p>
                </body>
                </html>

                """
            return MailMessage(to: to, subject: subject, text: text, html: html, actionLink: link)
        }
    }
}
