"""Accounts in the browser: every auth call, Firebase error codes, session persistence, token refresh, two tabs."""

import json
import os
import time
import urllib.parse

from harness import ROOT, CheckFailed, test


@test("auth: sign-up, sign-in, error codes, verification and reset mails, reload, sign-out")
def auth_calls(t):
    page = t.page()
    result = page.step("auth", "signUpAndErrors", "ann@example.com")
    # The reset request is answered before its mail is queued (see action_code), so wait for the reset mail.
    deadline = time.monotonic() + 10
    while True:
        status, body, _ = t.kura.api("GET", "/api/admin/outbox?limit=50")
        mails = [m for m in body["mails"] if m["to"] == "ann@example.com"] if status == 200 else []
        if any("mode=resetPassword" in (m.get("actionLink") or "") for m in mails) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    # The sign-up's verification mail and the password reset: the explicit sendEmailVerification, the first one
    # after the sign-up, sends nothing (Tests/Cases/verification-mail.json).
    t.equal("two mails to the address in the outbox: verification and reset",
            sorted((m.get("actionLink") or "").split("mode=")[-1].split("&")[0] for m in mails),
            ["resetPassword", "verifyEmail"])
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


def mails_to(kura, email):
    status, body, _ = kura.api("GET", "/api/admin/outbox?limit=100")
    return [m for m in body["mails"] if m["to"] == email] if status == 200 else None


@test("auth: one verification mail per sign-up (Tests/Cases/verification-mail.json, shared with the Swift SDK)",
      start=False)
def verification_mail_rule(t):
    with open(os.path.join(ROOT, "Tests", "Cases", "verification-mail.json")) as f:
        cases = json.load(f)["cases"]
    for number, case in enumerate(cases):
        kura = t.start_kura(settings={"auth.sendVerificationOnSignUp": str(case["sendVerificationOnSignUp"]).lower()})
        page = t.page()
        email = f"case{number}@example.com"
        for index, (action, mails) in enumerate(case["steps"]):
            page.step("auth", "verificationStep", action, email)
            # The server queues its mails before answering, so the outbox is complete when the call returns.
            t.equal(f"{case['name']}: mails after step {index + 1} ({action})", len(mails_to(kura, email)), mails)


@test("auth: signOut resolves after the server revoked the session, also under load")
def sign_out_revokes(t):
    page = t.page()
    page.step("auth", "signUp", "out@example.com")
    statuses = page.step("auth", "signOutRoundsUnderLoad", "out@example.com", 15)
    t.equal("after each sign-out the old ID token is refused at once", statuses, [401] * len(statuses))
    # The revoke request cannot get through: signOut says so (and the token indeed still works).
    page.step("auth", "signInAgain", "out@example.com")
    token = page.step("auth", "idToken")
    page.block_urls([t.kura.url + "/api/auth/signout"])
    page.step("auth", "signOutUnrevoked")
    page.block_urls([])
    status, _, _ = t.kura.api("GET", "/api/auth/me", token=token)
    t.equal("(the server indeed did not revoke that session)", status, 200)


@test("auth: signOut with an expired ID token still revokes the session",
      settings={"auth.idTokenLifetimeSeconds": "2"})
def sign_out_expired(t):
    page = t.page()
    page.step("auth", "signUp", "late@example.com")
    refresh_token = page.step("auth", "signOutAfterExpiry", 3000)
    status, body, _ = t.kura.api("POST", "/api/auth/refresh", {"refreshToken": refresh_token})
    t.check("the session's refresh token is refused after signOut", status in (400, 401), f"{status} {body}")
