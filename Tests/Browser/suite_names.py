"""Firebase's further names in kura.js: Timestamp (the case file both SDKs run), the value types, initializeFirestore's
settings, the cache and network controls, equality, FirebaseError-shaped errors, credentials and reauthentication,
the emulator calls pointing at Kura, the names that throw `unimplemented`, getDoc of a missing document without a
failed request, a queued write retried after ABORTED, and a Firebase v10 app that runs by its imports alone."""

import json
import os
import re
import time

from selenium.webdriver.common.by import By

import harness
from harness import HERE, ROOT, test

CASES = os.path.join(ROOT, "Tests", "Cases", "timestamps.json")


@test("names: Timestamp reads and writes by the rule of Tests/Cases/timestamps.json, and the Timestamp class")
def timestamps(t):
    page = t.page()
    page.step("auth", "signUp", "times@example.com")
    with open(CASES, encoding="utf-8") as f:
        cases = json.load(f)
    result = page.step("names", "timestampCases", cases)
    status, body, _ = t.kura.api("GET", f"/api/docs/{result['path']}")
    t.equal("Timestamps and Dates are stored as the server's time text",
            (status, body["data"]["writes"]), (200, [c["text"] for c in cases["writes"]]))
    page.step("names", "timestampClass")


@test("names: serverTimestamp, GeoPoint and Bytes and their stored forms")
def value_types(t):
    page = t.page()
    page.step("auth", "signUp", "types@example.com")
    result = page.step("names", "valueTypes")
    _, body, _ = t.kura.api("GET", f"/api/docs/{result['path']}")
    t.check("a server time is stored in the server's form",
            re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", body["data"]["at"]), body["data"]["at"])
    t.equal("a GeoPoint is stored as a map", body["data"]["place"], {"latitude": 35.0116, "longitude": 135.7681})


@test("names: initializeFirestore settings (persistence on, unsupported ones refused, ignoreUndefinedProperties)")
def settings(t):
    page = t.page()
    page.step("auth", "signUp", "settings@example.com")
    page.step("names", "settings", t.kura.url)
    page.step("names", "undefinedFields", t.kura.url)


@test("names: disableNetwork, enableNetwork, pending server timestamps, onSnapshotsInSync, terminate")
def network(t):
    page = t.page(persistence="indexeddb")
    page.step("auth", "signUp", "network@example.com")
    page.step("names", "network")


@test("names: queryEqual, snapshotEqual, FirebaseError-shaped errors, AuthErrorCodes")
def equality_and_errors(t):
    page = t.page()
    page.step("auth", "signUp", "errors@example.com")
    page.step("names", "equality")
    page.step("names", "errors")


@test("names: reauthenticateWithCredential after requires-recent-login, token and account functions",
      settings={"auth.recentLoginSeconds": "3"})
def credentials(t):
    t.kura.api("POST", "/api/auth/signup", {"email": "other@example.com", "password": "secret1"})
    page = t.page()
    page.step("auth", "signUp", "reauth@example.com")
    page.step("names", "credentials", "other@example.com")


@test("names: connectAuthEmulator and connectFirestoreEmulator point an app at Kura")
def emulators(t):
    t.kura.api("POST", "/api/auth/signup", {"email": "emulated@example.com", "password": "secret1"})
    page = t.page()
    page.step("names", "emulators", "emulated@example.com")


@test("names: OAuth, anonymous, link and phone sign-in and bundles throw unimplemented at the call")
def unimplemented(t):
    page = t.page()
    page.step("auth", "signUp", "unimplemented@example.com")
    page.step("names", "unimplementedNames")


@test("names: getDoc of a missing document logs no failed request")
def missing_document(t):
    page = t.page()
    page.step("auth", "signUp", "missing@example.com")
    page.browser_log()  # drop what came before
    page.step("names", "missingDocument")
    failed = [line for line in page.browser_log() if "404" in line or "Failed to load resource" in line]
    t.equal("the console shows no failed request", failed, [])


@test("names: a queued write that meets ABORTED is sent again, never dropped")
def aborted(t):
    page = t.page(persistence="indexeddb")
    page.step("auth", "signUp", "aborted@example.com")
    page.step("names", "abortedIsRetried")


def app_text(driver, script):
    return driver.execute_script(script)


@test("names: a Firebase v10 memo app runs against Kura by its imports alone")
def firebase_port(t):
    driver = t.driver
    url = f"{t.static.url}/firebase-port/index.html?emulator={t.kura.url}"
    page = t.page()  # a test page first, so the run's screenshots and logs have their usual place
    driver.get(url)
    until = harness.wait_script
    until(driver, "the app", "return window.memoApp && window.memoApp.ready")
    page.browser_log()  # what the test page logged before (its favicon)
    driver.find_element(By.ID, "email").send_keys("memo@example.com")
    driver.find_element(By.ID, "password").send_keys("secret1")
    driver.find_element(By.ID, "sign-up-button").click()
    until(driver, "the memo list", "return !document.getElementById('memos').hidden")
    t.check("the sign-in form is gone", not driver.find_element(By.ID, "sign-in").is_displayed())
    t.check("signed in, the session line names the provider",
            "Signed in with password on" in driver.find_element(By.ID, "session").text,
            driver.find_element(By.ID, "session").text)
    until(driver, "the empty state", "return !document.getElementById('empty').hidden")
    for title in ["Buy milk", "Call the dentist"]:
        box = driver.find_element(By.ID, "title")
        box.send_keys(title)
        box.submit()
        until(driver, f"{title} with its time",
              "return [...document.querySelectorAll('#list li')].some(li => li.textContent.includes(arguments[0])"
              " && li.querySelector('time'))".replace("arguments[0]", json.dumps(title)))
    titles = driver.execute_script("return [...document.querySelectorAll('#list .title')].map(e => e.textContent)")
    t.equal("newest first (orderBy createdAt desc on server timestamps)", titles, ["Call the dentist", "Buy milk"])
    shown = driver.execute_script("return document.querySelector('#list time').textContent")
    t.check("the server time is formatted through Timestamp.toDate()",
            re.fullmatch(r"\d{1,2} \w{3} \d{4}, \d\d:\d\d UTC", shown), shown)
    driver.find_element(By.CSS_SELECTOR, "#list li .like").click()
    until(driver, "the like", "return document.querySelector('#list li .like').textContent === '♥ 1'")
    uid = driver.execute_script("return JSON.parse(localStorage.getItem(arguments[0])).uid",
                                f"kura.session:{t.kura.url}:[DEFAULT]")
    deadline = time.time() + 15
    while True:  # the like shows at once (latency compensation) and reaches the server right after
        _, body, _ = t.kura.api("GET", f"/api/docs/users/{uid}/memos")
        stored = sorted(body["documents"], key=lambda d: d["data"]["title"])
        if [d["data"]["likes"] for d in stored] == [0, 1] or time.time() > deadline:
            break
        time.sleep(0.1)
    t.check("the server holds the memos with times in its own form",
            len(stored) == 2 and all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", d["data"]["createdAt"]) and
                re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", d["data"]["remindAt"]) for d in stored),
            stored)
    t.equal("... and the like on the newest", [d["data"]["likes"] for d in stored], [0, 1])
    # Offline (multi-tab persistence): the new memo shows at once, its pending server time reading null as in
    # Firestore (the app says "Saving…"), and gets the server's time once the network is back.
    page.set_offline(True)
    box = driver.find_element(By.ID, "title")
    box.send_keys("Written offline")
    box.submit()
    row = ("return [...document.querySelectorAll('#list li')].find(li => li.textContent.includes('Written offline'))")
    until(driver, "the offline memo, saving", row + "?.querySelector('.saving')")
    t.check("offline, the new memo shows at once with its server time pending (null: 'Saving…')", True)
    harness.set_viewport(driver, 390)
    harness.full_page_screenshot(driver, "firebase-port-offline-390")
    page.set_offline(False)
    until(driver, "the offline memo with the server's time", row + "?.querySelector('time')", timeout=40)
    t.check("back online, it shows the server's time", True)
    for width in (390, 1280):
        harness.set_viewport(driver, width)
        harness.full_page_screenshot(driver, f"firebase-port-{width}")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    errors = [line for line in page.browser_log()
              if "Failed to load" in line and "ERR_INTERNET_DISCONNECTED" not in line]  # the test cut the network
    t.equal("the console has no failed requests but those made while offline", errors, [])
