import Foundation

/// Firebase's `ActionCodeSettings`: where the page of a verification or password-reset link leads back to.
///
/// Kura's action page (`/auth/action`) confirms the address or takes the new password itself, then shows "Back to
/// the app" linking to `url`; the server refuses a `url` that is not an absolute http(s) URL
/// (`.invalidContinueURI`) or is on an origin it does not allow (`.unauthorizedDomain`; its own origin and
/// `cors.origins` are allowed). The other fields exist so that Firebase code compiles; Kura does not use them.
public final class ActionCodeSettings: @unchecked Sendable {
    // `@unchecked`: plain stored properties that an app sets before passing the settings to one call, as in
    // Firebase; the SDK reads `url` once, when it builds the request.
    /// Where the action page leads back to once the action is done.
    public var url: URL?
    /// Firebase opens the link in the app when true; Kura's links always open the action page.
    public var handleCodeInApp = false
    /// Firebase Dynamic Links' domain; not used.
    public var dynamicLinkDomain: String?
    /// Firebase's iOS bundle ID for the link; not used.
    public private(set) var iOSBundleID: String?

    public init() {}

    /// Firebase's `setIOSBundleID(_:)`; kept, not used.
    public func setIOSBundleID(_ bundleID: String) { iOSBundleID = bundleID }

    /// Firebase's `setAndroidPackageName(_:installIfNotAvailable:minimumVersion:)`; not used.
    public func setAndroidPackageName(_ name: String, installIfNotAvailable: Bool, minimumVersion: String?) {}

    /// The request body's `continueUrl`, when a URL is set.
    var continueURL: String? { url?.absoluteString }
}
