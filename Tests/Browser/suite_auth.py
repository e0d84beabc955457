"""Accounts in the browser: every auth call, Firebase error codes, session persistence, token refresh, two tabs."""

import time
import urllib.parse

from harness import CheckFailed, test


@test("auth: sign-up, sign-in, error codes, verification and reset mails, reload, sign-out")
def auth_calls(t):
    page = t.page()
    result = page.step("auth", "signUpAndErrors", "ann@example.com")
    # The reset request is answered before its mail is queued (see action_code), so wait for the third mail.
    deadline = time.monotonic() + 10
    while True:
        status, body, _ = t.kura.api("GET", "/api/admin/outbox?limit=50")
        mails = [m for m in body["mails"] if m["to"] == "ann@example.com"] if status == 200 else []
        if len(mails) >= 3 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    # The sign-up's verification mail, the explicit one, and the password reset.
    t.equal("three mails to the address in the outbox", len(mails), 3)
    t.equal("no mail to an unknown address", [m for m in body["mails"] if m["to"] == "nobody@example.com"], [])
    status, _, _ = t.kura.api("PATCH", f"/api/admin/users/{result['uid']}", {"emailVerified": True})
    t.equal("the administrator verifies the address", status, 200)
    page.step("auth", "reloadSeesVerified")
    token = page.step("auth", "signOutAndBack", "ann@example.com")
    status, body, _ = t.kura.api("GET", "/api/auth/me", token=token)
    t.check("the signed-out session's ID token is refused", status == 401 and body["error"]["code"] in
            ("UNAUTHENTICATED", "INVALID_ID_TOKEN"), f"{status} {body}")


@test("auth: the session persists in localStorage, sessionStorage or memory")
def auth_persistence(t):
    local = t.page()
    local.step("auth", "signUp", "lou@example.com")
    local.load()
    t.equal("local: restored after a reload", local.step("auth", "currentEmail"), "lou@example.com")
    other = t.page()
    t.equal("local: another tab has it too", other.step("auth", "currentEmail"), "lou@example.com")
    session = t.page(authPersistence="session")
    session.step("auth", "signUp", "sue@example.com")
    session.load()
    t.equal("session: restored after a reload of the tab", session.step("auth", "currentEmail"), "sue@example.com")
    fresh = t.page(authPersistence="session")
    t.equal("session: another tab does not have it", fresh.step("auth", "currentEmail"), None)
    memory = t.page(authPersistence="memory")
    memory.step("auth", "signUp", "max@example.com")
    memory.load()
    t.equal("memory: gone after a reload", memory.step("auth", "currentEmail"), None)


@test("auth: ID tokens refresh before expiry; concurrent calls share one refresh",
      settings={"auth.idTokenLifetimeSeconds": "4", "auth.refreshTokenReuseGraceSeconds": "0"})
def auth_refresh(t):
    page = t.page()
    page.step("auth", "signUp", "tim@example.com")
    page.step("auth", "refreshBeforeExpiry")
    page.step("auth", "concurrentRefresh")


@test("auth: two tabs share one session without spending a refresh token twice",
      settings={"auth.refreshTokenReuseGraceSeconds": "0"})
def auth_two_tabs(t):
    first = t.page()
    second = t.page()
    second.step("auth", "recordStates")
    first.step("auth", "signUp", "two@example.com")
    second.wait("auth", "statesInclude", "two@example.com", what="the second tab seeing the sign-in")
    # Both tabs refresh at once, several times; with no reuse grace, a refresh token spent twice would revoke the
    # session and the reads below would fail.
    first.step("auth", "startRefreshes", 6)
    second.step("auth", "startRefreshes", 6)
    first.step("auth", "finishRefreshes")
    second.step("auth", "finishRefreshes")
    first.step("auth", "readOwnDocument", "first")
    second.step("auth", "readOwnDocument", "second")
    # The last refresh reaches the other tab by broadcast, asynchronously.
    deadline = time.time() + 10
    while first.step("auth", "refreshToken") != second.step("auth", "refreshToken"):
        if time.time() > deadline:
            raise CheckFailed("the tabs did not converge on one refresh token")
        time.sleep(0.05)
    t.check("the tabs hold the same refresh token", True)
    # A tab whose broadcast message has not arrived yet (simulated by muting it) still holds the spent refresh
    # token; it must take the other tab's new tokens instead of presenting the spent one (which, with no grace,
    # revokes the session).
    second.step("auth", "muteBroadcast")
    token = first.step("auth", "forceRefresh")
    t.equal("the muted tab adopts the other tab's refresh instead of spending its token again",
            second.step("auth", "forceRefresh"), token)
    first.step("auth", "readOwnDocument", "first")
    second.step("auth", "readOwnDocument", "second")
    second.step("auth", "unmuteBroadcast")
    first.step("auth", "signOut")
    second.wait("auth", "signedOut", what="the second tab seeing the sign-out")
    t.check("the second tab saw the sign-out", True)


def action_code(t, email, mode):
    """The code of the newest `mode` link mailed to `email` (from the outbox; mails are held without SMTP).

    A password-reset request is answered before its mail is queued (known and unknown addresses answer alike,
    docs/api.md), so the mail is waited for, up to 10 s."""
    deadline = time.monotonic() + 10
    while True:
        status, body, _ = t.kura.api("GET", "/api/admin/outbox?limit=50")
        for mail in body["mails"] if status == 200 else []:
            link = mail.get("actionLink") or ""
            if mail["to"] == email and f"mode={mode}" in link:
                return urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["code"][0]
        if time.monotonic() > deadline:
            raise CheckFailed(f"no {mode} link mailed to {email}: {body}")
        time.sleep(0.05)


@test("auth: action codes from mails, profile and password changes, account deletion")
def account_changes(t):
    page = t.page()
    page.step("auth", "signUp", "pat@example.com")
    page.step("auth", "applyVerification", action_code(t, "pat@example.com", "verifyEmail"))
    page.step("auth", "changeProfileAndPassword")
    page.step("auth", "requestReset", "pat@example.com")
    page.step("auth", "resetPassword", action_code(t, "pat@example.com", "resetPassword"), "pat@example.com")
    page.step("auth", "deleteAccount", "pat@example.com")
