"""The Python Admin SDK (firebase-admin) in emulator mode against a Kura server with compat.firebaseAuth on.

Run by Tests/KuraServerTests/FirebaseAdminTests.swift with FIREBASE_AUTH_EMULATOR_HOST=127.0.0.1:<port> and
GOOGLE_CLOUD_PROJECT=<compat.firebaseProjectId>:

    firebase_admin_check.py ID_TOKEN UID

ID_TOKEN is an ID token from Kura's own sign-in for the account UID. The script drives the SDK's user management
(create, get by uid and by email, update, custom claims, list with paging, delete, action links) and verifies the
token; it prints "all admin checks passed" and exits 0, or names the first check that failed and exits 1.
"""

import os
import sys
from urllib.parse import parse_qs, urlparse

import firebase_admin
from firebase_admin import auth


def check(condition, what):
    if not condition:
        print(f"FAILED: {what}")
        sys.exit(1)


def raises(error_type, call, what):
    try:
        call()
    except error_type:
        return
    except Exception as error:  # noqa: BLE001 - the wrong kind of error is a failure to report
        check(False, f"{what}: raised {type(error).__name__}: {error}")
    check(False, f"{what}: did not raise {error_type.__name__}")


def main():
    id_token, signed_in_uid = sys.argv[1], sys.argv[2]
    firebase_admin.initialize_app(options={"projectId": os.environ["GOOGLE_CLOUD_PROJECT"]})

    # Create, with a uid of Kura's choosing and with one of ours.
    made = auth.create_user(email="made@example.com", password="secret-pw", display_name="Made")
    check(made.email == "made@example.com" and made.display_name == "Made", f"create_user: {made._data}")
    check(not made.email_verified and not made.disabled, "create_user: new accounts are unverified and enabled")
    check(made.provider_data and made.provider_data[0].provider_id == "password", "create_user: password provider")
    chosen = auth.create_user(uid="chosen-uid", email="chosen@example.com", password="secret-pw", email_verified=True)
    check(chosen.uid == "chosen-uid" and chosen.email_verified, f"create_user with uid: {chosen._data}")
    raises(auth.EmailAlreadyExistsError, lambda: auth.create_user(email="made@example.com"), "duplicate email")

    # Get by uid and by email.
    check(auth.get_user(made.uid).email == "made@example.com", "get_user")
    check(auth.get_user_by_email("MADE@example.com").uid == made.uid, "get_user_by_email, any letter case")
    check(auth.get_user(made.uid).user_metadata.creation_timestamp > 0, "creation timestamp")
    raises(auth.UserNotFoundError, lambda: auth.get_user("no-such-uid"), "get_user of an unknown uid")
    raises(auth.UserNotFoundError, lambda: auth.get_user_by_email("nobody@example.com"), "unknown email")

    # Update, and custom claims.
    updated = auth.update_user(made.uid, display_name="Renamed", email_verified=True)
    check(updated.display_name == "Renamed" and updated.email_verified, f"update_user: {updated._data}")
    auth.update_user(made.uid, display_name=auth.DELETE_ATTRIBUTE)
    check(auth.get_user(made.uid).display_name is None, "update_user deletes the display name")
    auth.set_custom_user_claims(made.uid, {"admin": True, "level": 3})
    check(auth.get_user(made.uid).custom_claims == {"admin": True, "level": 3}, "set_custom_user_claims")
    auth.set_custom_user_claims(made.uid, None)
    check(not auth.get_user(made.uid).custom_claims, "custom claims cleared")
    auth.update_user(made.uid, disabled=True)
    check(auth.get_user(made.uid).disabled, "update_user disables")
    auth.update_user(made.uid, disabled=False)

    # List with paging: every account once, two at a time.
    for n in range(3):
        auth.create_user(email=f"listed{n}@example.com", password="secret-pw")
    page = auth.list_users(max_results=2)
    seen = []
    pages = 0
    while page:
        pages += 1
        check(len(page.users) <= 2, "a page holds at most max_results users")
        seen += [user.uid for user in page.users]
        page = page.get_next_page()
    check(len(seen) == len(set(seen)) == 6 and pages == 3, f"list_users pages: {pages} pages, {seen}")
    check(sorted(user.uid for user in auth.list_users().iterate_all()) == sorted(seen), "iterate_all")

    # Action links, whose codes Kura's endpoints take.
    link = auth.generate_email_verification_link("listed0@example.com")
    query = parse_qs(urlparse(link).query)
    check(query.get("mode") == ["verifyEmail"] and query.get("code"), f"verification link: {link}")
    reset = auth.generate_password_reset_link("listed1@example.com")
    check(parse_qs(urlparse(reset).query).get("mode") == ["resetPassword"], f"reset link: {reset}")
    raises(auth.EmailNotFoundError, lambda: auth.generate_password_reset_link("nobody@example.com"), "link, unknown")

    # An ID token from Kura's sign-in.
    claims = auth.verify_id_token(id_token)
    check(claims["uid"] == signed_in_uid and claims["user_id"] == signed_in_uid, f"verify_id_token: {claims}")
    check(claims["firebase"]["sign_in_provider"] == "password", f"sign_in_provider: {claims}")
    check(auth.verify_id_token(id_token, check_revoked=True)["uid"] == signed_in_uid, "check_revoked")

    # Delete, one and many.
    auth.delete_user(made.uid)
    raises(auth.UserNotFoundError, lambda: auth.get_user(made.uid), "get_user after delete_user")
    result = auth.delete_users(["chosen-uid", "no-such-uid"])
    check(result.success_count == 2 and result.failure_count == 0, "delete_users")
    raises(auth.UserNotFoundError, lambda: auth.get_user("chosen-uid"), "get_user after delete_users")

    print("all admin checks passed")


if __name__ == "__main__":
    main()
