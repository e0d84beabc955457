"""The notebooks app (apps/notes) as a person uses it: served by Kura (`--public`) with its rules section; sign up,
refused (by the page and by the server) until the address is verified through the mailed link, notebooks (blank and
duplicate names refused, two tabs racing for one name), words added, edited and deleted, live in a second tab,
search with notebook tokens by the keyboard, rename and delete, and a session revoked elsewhere. Screenshots of
every main screen at 390 and 1280 px, in Japanese and English, go to <screenshots>/notes/ (docs/apps.md shows
them)."""

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import harness
from harness import ROOT, CheckFailed, full_page_screenshot, set_viewport, test

APP = os.path.join(ROOT, "apps", "notes")
EMAIL = "reader@example.com"


def wait_for(t, what, condition, timeout=20):
    deadline = time.time() + timeout
    while True:
        try:
            value = condition()
        except Exception:  # noqa: BLE001 - the page is still drawing
            value = None
        if value:
            return value
        if time.time() > deadline:
            try:
                page = t.driver.execute_script(
                    "return (document.getElementById('main') || document.body).innerText.slice(0, 600)"
                    " + ' | status: ' + (document.getElementById('status') || {}).textContent")
            except Exception:  # noqa: BLE001 - a diagnostic only
                page = "?"
            raise CheckFailed(f"timed out waiting for {what}; the page shows: {page}")
        time.sleep(0.1)


def shot(t, name):
    """Full-page screenshots of the current screen at 1280 and 390 px, as notes/<name>-<width>.png."""
    driver = t.driver
    directory = os.path.join(getattr(harness, "SCREENSHOTS", None)
                             or os.path.join(ROOT, ".build", "browser-screenshots"), "notes")
    os.makedirs(directory, exist_ok=True)
    driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 1, "y": 1})
    # The passing announcement (a toast) off the picture, so it covers nothing.
    driver.execute_script("document.getElementById('status').textContent = ''")
    for width in (1280, 390):
        set_viewport(driver, width)
        time.sleep(0.3)
        overflow = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
        t.check(f"{name} at {width} px has no horizontal overflow", not overflow, "the page scrolls sideways")
        full_page_screenshot(driver, f"notes/{name}-{width}")
        # A smaller copy for docs/apps.md (docs/apps/notes-*.png are copied from these).
        height = driver.execute_script("return document.documentElement.scrollHeight")
        small = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 0.5 if width > 600 else 0.75}})
        os.makedirs(os.path.join(directory, "small"), exist_ok=True)
        with open(os.path.join(directory, "small", f"notes-{name}-{width}.png"), "wb") as f:
            f.write(base64.b64decode(small["data"]))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    time.sleep(0.2)


def setup(t):
    """A Kura serving apps/notes/web at /notes/, with the common and notes rules sections."""
    root = tempfile.mkdtemp(prefix="kura-notes-public-")
    t.cleanup.append(lambda: shutil.rmtree(root, ignore_errors=True))
    shutil.copytree(os.path.join(APP, "web"), os.path.join(root, "notes"))
    kura = t.start_kura(public=root, settings={"auth.rateLimits": "false"})
    rules = subprocess.run([os.path.join(ROOT, "apps", "rules.sh"), "notes"], capture_output=True, text=True,
                           check=True).stdout
    status, _, _ = kura.api("POST", "/api/admin/rules", {"source": rules})
    t.equal("the notes rules section (apps/rules.sh notes) compiles and is in force", status, 200)
    return kura


def main_text(t):
    return t.driver.find_element(By.ID, "main").text


def status_text(t):
    return t.driver.execute_script("return document.getElementById('status').textContent")


def notebook_names(t):
    return [e.text for e in t.driver.find_elements(By.CSS_SELECTOR, "#notebook-list .nb-name")]


def word_texts(t, selector="#words .word"):
    return [e.text for e in t.driver.find_elements(By.CSS_SELECTOR, selector)]


def server_list(kura, path):
    status, body, _ = kura.api("GET", f"/api/docs/{path}?pageSize=1000")
    return body.get("documents", []) if status == 200 else None


def create_notebook(t, name):
    field = t.driver.find_element(By.ID, "new-notebook")
    field.clear()
    field.send_keys(name)
    field.send_keys(Keys.ENTER)


def open_notebook(t, name):
    for link in t.driver.find_elements(By.CSS_SELECTOR, "#notebook-list a"):
        if link.find_element(By.CSS_SELECTOR, ".nb-name").text == name:
            link.click()
            wait_for(t, f"the notebook {name}", lambda: t.driver.find_element(By.ID, "notebook-title").text == name)
            return
    raise CheckFailed(f"no notebook {name!r} in {notebook_names(t)}")


def add_word(t, word, explanation):
    t.driver.find_element(By.ID, "new-word").send_keys(word)
    t.driver.find_element(By.ID, "new-explanation").send_keys(explanation)
    t.driver.find_element(By.ID, "add-word").click()
    wait_for(t, f"the word {word}", lambda: word in word_texts(t))


def page_token(t):
    return t.driver.execute_async_script("""
      const done = arguments[0];
      import('/sdk/kura.js').then(k => k.getAuth(k.getApp()).currentUser.getIdToken()).then(done, e => done(null));
    """)


def verification_link(kura, email):
    deadline = time.time() + 15
    while time.time() < deadline:
        status, body, _ = kura.api("GET", "/api/admin/outbox?limit=50")
        for mail in (body or {}).get("mails", []) if status == 200 else []:
            link = mail.get("actionLink") or ""
            if mail["to"] == email and "mode=verifyEmail" in link:
                return link
        time.sleep(0.2)
    raise CheckFailed(f"no verification mail to {email} in the outbox")


@test("notes: sign up and verify, notebooks, words live in two tabs, search with tokens, revoked session",
      start=False)
def notes_app(t):
    kura = setup(t)
    driver = t.driver
    driver.get(f"{kura.url}/notes/")

    # Signed out: the sign-in screen, in the browser's language (English here).
    wait_for(t, "the sign-in form", lambda: driver.find_element(By.ID, "email"))
    t.equal("the page starts in the browser's language", driver.execute_script("return document.documentElement.lang"),
            "en")
    shot(t, "signin-en")
    driver.find_element(By.ID, "to-signup").click()
    wait_for(t, "the sign-up form", lambda: "Create an account" in main_text(t))
    t.check("the password rule is said before submitting", "at least 6 characters" in main_text(t), main_text(t))
    driver.find_element(By.ID, "email").send_keys(EMAIL)
    driver.find_element(By.ID, "password").send_keys("short")
    driver.find_element(By.ID, "submit").click()
    wait_for(t, "the weak-password sentence", lambda: "at least 6" in driver.find_element(By.ID, "form-error").text)
    driver.find_element(By.ID, "show-password").click()
    t.equal("the show-password box shows it", driver.find_element(By.ID, "password").get_attribute("type"), "text")
    driver.find_element(By.ID, "password").send_keys("-enough")
    driver.find_element(By.ID, "password").send_keys(Keys.ENTER)

    # Unverified: the page waits, and the server refuses the data too.
    wait_for(t, "the verification screen", lambda: driver.find_element(By.ID, "verified"))
    t.check("the screen names the address", EMAIL in main_text(t), main_text(t))
    shot(t, "verify-en")
    uid = driver.execute_script("return window.notesApp.user")
    token = page_token(t)
    status, body, _ = kura.api("GET", f"/api/docs/notes/{uid}/notebooks", token=token)
    t.equal("the REST API refuses an unverified user's notebooks", (status, (body or {}).get("error", {}).get("code")),
            (403, "PERMISSION_DENIED"))
    status, _, _ = kura.api("POST", f"/api/docs/notes/{uid}/notebooks",
                            {"data": {"name": "x", "nameKey": "x", "createdAt": "2026-01-01T00:00:00Z"}}, token=token)
    t.equal("... and a write", status, 403)
    driver.find_element(By.ID, "verified").click()
    wait_for(t, "not verified yet", lambda: "not verified yet" in driver.find_element(By.ID, "verify-message").text)
    t.equal("the app has not gone on", driver.execute_script("return window.notesApp.phase"), "unverified")

    # The mailed link, opened in another tab, then "I have verified".
    link = verification_link(kura, EMAIL)
    app_tab = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(link)
    wait_for(t, "the action page's button", lambda: driver.find_element(By.CSS_SELECTOR, "form [type=submit]")).click()
    wait_for(t, "the address verified on the server",
             lambda: kura.api("GET", f"/api/admin/users/{uid}")[1].get("emailVerified")
             or kura.api("GET", f"/api/admin/users/{uid}")[1].get("user", {}).get("emailVerified"))
    driver.close()
    driver.switch_to.window(app_tab)
    driver.find_element(By.ID, "verified").click()
    wait_for(t, "the app", lambda: driver.execute_script("return window.notesApp.phase") == "app")
    wait_for(t, "the empty notebooks", lambda: driver.find_element(By.ID, "notebooks-empty"))
    shot(t, "empty-en")

    # Notebooks: blank and duplicate names refused, by the page and by the rules' name key.
    create_notebook(t, "   ")
    wait_for(t, "the blank-name sentence", lambda: driver.find_element(By.ID, "create-error").text == "Enter a name.")
    create_notebook(t, "  English  ")
    wait_for(t, "the notebook English", lambda: notebook_names(t) == ["English"])
    t.equal("the name is trimmed and the notebook opens", driver.find_element(By.ID, "notebook-title").text, "English")
    create_notebook(t, "ＥＮＧＬＩＳＨ")
    wait_for(t, "the duplicate-name sentence", lambda: "already have a notebook called “English”"
             in driver.find_element(By.ID, "create-error").text)
    t.equal("focus stays in the name field", driver.switch_to.active_element.get_attribute("id"), "new-notebook")
    create_notebook(t, "日本語")
    wait_for(t, "the notebook 日本語", lambda: "日本語" in notebook_names(t))
    create_notebook(t, "Français")
    wait_for(t, "three notebooks", lambda: len(notebook_names(t)) == 3)
    keys = sorted(d["id"] for d in server_list(kura, f"notes/{uid}/notebookNames"))
    t.equal("one name key per notebook on the server", keys, sorted(["english", "日本語", "français"]))
    status, _, _ = kura.api("PUT", f"/api/docs/notes/{uid}/notebookNames/english", {"data": {"notebook": "mine"}},
                            token=page_token(t))
    t.equal("the rules refuse writing over a taken name", status, 403)

    # Two tabs racing for one name: both submit at the same moment; one wins.
    other_tab = None
    driver.switch_to.new_window("tab")
    other_tab = driver.current_window_handle
    driver.get(f"{kura.url}/notes/")
    wait_for(t, "the app in the second tab", lambda: len(notebook_names(t)) == 3)
    at = int(time.time() * 1000) + 2500
    race = """
      const [name, at] = arguments;
      const field = document.getElementById('new-notebook');
      field.value = name;
      setTimeout(() => field.form.requestSubmit(), Math.max(0, at - Date.now()));
    """
    driver.execute_script(race, "Race", at)
    driver.switch_to.window(app_tab)
    driver.execute_script(race, "ｒａｃｅ", at)
    time.sleep(3)
    wait_for(t, "one Race notebook in both tabs", lambda: len(notebook_names(t)) == 4)
    names = [d["data"]["name"] for d in server_list(kura, f"notes/{uid}/notebooks")]
    t.equal("the server has one notebook of that name", len([n for n in names if n in ("Race", "ｒａｃｅ")]), 1)
    errors = []
    for handle in (app_tab, other_tab):
        driver.switch_to.window(handle)
        errors.append(driver.find_element(By.ID, "create-error").text)
    t.equal("exactly one tab says the name is taken", len([e for e in errors if "already have" in e]), 1)

    # Words: add in one tab, see them at once in the other.
    driver.switch_to.window(app_tab)
    open_notebook(t, "English")
    driver.switch_to.window(other_tab)
    open_notebook(t, "English")
    wait_for(t, "the empty notebook", lambda: driver.find_element(By.ID, "words-empty"))
    links = driver.find_elements(By.CSS_SELECTOR, "#notebook-list a")
    driver.switch_to.window(app_tab)
    add_word(t, "apple", "a fruit; りんご")
    add_word(t, "Banana", "a yellow frut")
    add_word(t, "cherry", "a small red fruit")
    driver.switch_to.window(other_tab)
    wait_for(t, "the words live in the second tab", lambda: word_texts(t) == ["apple", "Banana", "cherry"])
    t.check("the counts in the list follow", "3 words" in driver.find_element(By.ID, "notebook-list").text)
    t.check("the notebook links are the same elements after the live updates (updated in place)",
            driver.execute_script("return arguments[0].every((link) => link.isConnected)", links))

    # Edit in the second tab; the first sees it.
    card = [c for c in driver.find_elements(By.CSS_SELECTOR, "#words .word-card") if "Banana" in c.text][0]
    card.find_element(By.CSS_SELECTOR, "[data-action=edit]").click()
    explanation = wait_for(t, "the editor", lambda: driver.find_element(By.CSS_SELECTOR, ".editing textarea"))
    t.equal("the editor takes focus", driver.switch_to.active_element.get_attribute("value"), "Banana")
    explanation.clear()
    explanation.send_keys("a long yellow fruit")
    driver.find_element(By.CSS_SELECTOR, ".editing [data-action=save]").click()
    wait_for(t, "the edited word", lambda: "a long yellow fruit" in driver.find_element(By.ID, "words").text)
    driver.switch_to.window(app_tab)
    wait_for(t, "the edit live in the first tab", lambda: "a long yellow fruit" in driver.find_element(By.ID, "words").text)

    # Delete with the keyboard: Tab to cherry's Delete, Enter, then confirm in the dialog.
    card = [c for c in driver.find_elements(By.CSS_SELECTOR, "#words .word-card") if "cherry" in c.text][0]
    card.find_element(By.CSS_SELECTOR, "[data-action=delete]").send_keys(Keys.ENTER)
    wait_for(t, "the confirmation", lambda: driver.find_element(By.ID, "confirm").get_attribute("open") is not None)
    t.equal("the dialog starts on Cancel", driver.switch_to.active_element.get_attribute("id"), "confirm-cancel")
    driver.find_element(By.ID, "confirm-ok").click()
    wait_for(t, "cherry gone", lambda: word_texts(t) == ["apple", "Banana"])
    driver.switch_to.window(other_tab)
    wait_for(t, "cherry gone in the other tab", lambda: word_texts(t) == ["apple", "Banana"])
    driver.switch_to.window(app_tab)
    shot(t, "notebook-en")

    open_notebook(t, "日本語")
    add_word(t, "りんご", "果物。英語では apple")
    add_word(t, "コーヒー", "飲み物")
    open_notebook(t, "Français")
    add_word(t, "café", "コーヒー")
    add_word(t, "pomme", "りんご")

    # Search: case-, width- and kana-insensitive, across notebooks.
    search = driver.find_element(By.ID, "search")
    search.send_keys("ﾘﾝｺﾞ")
    wait_for(t, "results for ﾘﾝｺﾞ", lambda: sorted(word_texts(t, "#results .word")) == ["apple", "pomme", "りんご"])
    t.equal("the live region counts them", driver.find_element(By.ID, "results-summary").text, "3 found.")
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys("ＡＰＰＬＥ")
    wait_for(t, "results for ＡＰＰＬＥ", lambda: sorted(word_texts(t, "#results .word")) == ["apple", "りんご"])

    # A token: type a notebook's name, Enter; it narrows the results.
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.BACKSPACE)
    search.send_keys("日本")
    wait_for(t, "the token offer", lambda: "日本語" in driver.find_element(By.ID, "search-offer").text)
    search.send_keys(Keys.ENTER)
    wait_for(t, "the 日本語 token", lambda: [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".token span")]
             == ["日本語"])
    t.equal("the field is empty again", search.get_attribute("value"), "")
    wait_for(t, "the notebook's words", lambda: sorted(word_texts(t, "#results .word")) == ["りんご", "コーヒー"])
    search.send_keys("こーひー")
    wait_for(t, "narrowed results", lambda: word_texts(t, "#results .word") == ["コーヒー"])
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.BACKSPACE)
    search.send_keys("fr", Keys.ENTER)
    wait_for(t, "the Français token", lambda: len(driver.find_elements(By.CSS_SELECTOR, ".token")) == 2)
    wait_for(t, "two notebooks' words", lambda: len(word_texts(t, "#results .word")) == 4)
    shot(t, "search-en")
    # Backspace in the empty field removes the last token; Tab to a token's × and Enter removes that one.
    search.send_keys(Keys.BACKSPACE)
    wait_for(t, "one token left", lambda: len(driver.find_elements(By.CSS_SELECTOR, ".token")) == 1)
    search.send_keys(Keys.SHIFT, Keys.TAB)
    active = driver.switch_to.active_element
    t.equal("Shift+Tab reaches the token's remove button", active.get_attribute("aria-label"),
            "Remove the filter “日本語”")
    active.send_keys(Keys.ENTER)
    wait_for(t, "no tokens", lambda: not driver.find_elements(By.CSS_SELECTOR, ".token"))
    t.equal("focus goes back to the field", driver.switch_to.active_element.get_attribute("id"), "search")
    wait_for(t, "the notebook view again", lambda: driver.find_element(By.ID, "notebook-title"))

    # Rename: a taken name refused; a free one moves the name key.
    open_notebook(t, "English")
    driver.find_element(By.ID, "rename").click()
    field = driver.find_element(By.ID, "rename-input")
    field.clear()
    field.send_keys("日本語", Keys.ENTER)
    wait_for(t, "the taken-name sentence", lambda: "already have" in driver.find_element(By.ID, "rename-error").text)
    field.clear()
    field.send_keys("English words", Keys.ENTER)
    wait_for(t, "the new name", lambda: driver.find_element(By.ID, "notebook-title").text == "English words")
    keys = sorted(d["id"] for d in server_list(kura, f"notes/{uid}/notebookNames"))
    t.check("the name key moved", "english words" in keys and "english" not in keys, keys)

    # Delete a notebook: the dialog says how many words go; they all go.
    open_notebook(t, "Français")
    driver.find_element(By.ID, "delete-notebook").click()
    wait_for(t, "the confirmation", lambda: "2 words" in driver.find_element(By.ID, "confirm-body").text)
    shot(t, "delete-en")
    driver.find_element(By.ID, "confirm-ok").click()
    wait_for(t, "Français gone", lambda: "Français" not in notebook_names(t))
    words = [d["data"]["word"] for d in server_list(kura, f"notes/{uid}/words")]
    t.check("its words are gone from the server", "café" not in words and "pomme" not in words, words)
    t.check("the name key too", "français" not in [d["id"] for d in server_list(kura, f"notes/{uid}/notebookNames")])

    # Japanese.
    driver.find_element(By.ID, "lang-switch").click()
    wait_for(t, "Japanese", lambda: driver.execute_script("return document.documentElement.lang") == "ja")
    wait_for(t, "the home screen", lambda: "単語帳を選んでください" in main_text(t))
    shot(t, "home-ja")
    open_notebook(t, "日本語")
    shot(t, "notebook-ja")
    search = driver.find_element(By.ID, "search")
    search.send_keys("日本語", Keys.ENTER)
    search.send_keys("ｺｰﾋｰ")
    wait_for(t, "Japanese results", lambda: word_texts(t, "#results .word") == ["コーヒー"])
    shot(t, "search-ja")

    # A session revoked elsewhere (the account disabled): both tabs go back to sign-in within seconds.
    status, _, _ = kura.api("PATCH", f"/api/admin/users/{uid}", {"disabled": True})
    t.equal("the administrator disables the account", status, 200)
    wait_for(t, "the sign-in screen after the revocation", lambda: driver.find_element(By.ID, "notice"), timeout=15)
    t.check("it says the session ended", "セッションが終わりました" in driver.find_element(By.ID, "notice").text)
    shot(t, "session-ended-ja")
    driver.switch_to.window(other_tab)
    wait_for(t, "the other tab signed out too", lambda: driver.find_element(By.ID, "email"), timeout=15)
    kura.api("PATCH", f"/api/admin/users/{uid}", {"disabled": False})

    # Sign in again; sign out from the app.
    driver.find_element(By.ID, "email").send_keys(EMAIL)
    driver.find_element(By.ID, "password").send_keys("short-enough", Keys.ENTER)
    wait_for(t, "the app again", lambda: len(notebook_names(t)) == 3)
    driver.find_element(By.ID, "sign-out").click()
    wait_for(t, "signed out", lambda: driver.find_element(By.ID, "email"))
    t.check("a sign-out here is not 'session ended'", not driver.find_elements(By.ID, "notice"))


@test("notes: sign out from the verification screen; a new password elsewhere ends the session", start=False)
def notes_sessions(t):
    kura = setup(t)
    driver = t.driver
    driver.get(f"{kura.url}/notes/")
    wait_for(t, "the sign-in form", lambda: driver.find_element(By.ID, "email"))
    driver.find_element(By.ID, "lang-switch").click()
    driver.find_element(By.ID, "to-signup").click()
    wait_for(t, "the Japanese sign-up form", lambda: "アカウントを作る" in main_text(t))
    shot(t, "signup-ja")
    driver.find_element(By.ID, "email").send_keys("second@example.com")
    driver.find_element(By.ID, "password").send_keys("secret-pw", Keys.ENTER)
    wait_for(t, "the verification screen", lambda: driver.find_element(By.ID, "verified"))
    shot(t, "verify-ja")
    driver.find_element(By.ID, "sign-out").click()
    wait_for(t, "signed out from the verification screen", lambda: driver.find_element(By.ID, "email"))

    # Verified by the administrator meanwhile: the next sign-in goes straight to the app.
    status, body, _ = kura.api("GET", "/api/admin/users?limit=10")
    users = (body or {}).get("users", [])
    uid = [u for u in users if u.get("email") == "second@example.com"][0]["uid"]
    kura.api("PATCH", f"/api/admin/users/{uid}", {"emailVerified": True})
    driver.find_element(By.ID, "email").send_keys("second@example.com")
    driver.find_element(By.ID, "password").send_keys("secret-pw", Keys.ENTER)
    wait_for(t, "the app", lambda: driver.execute_script("return window.notesApp.phase") == "app")
    wait_for(t, "the empty notebooks", lambda: driver.find_element(By.ID, "notebooks-empty"))

    # The password changed in another session: this one's tokens stop working and the app signs out.
    status, body, _ = kura.api("PATCH", f"/api/admin/users/{uid}", {"password": "another-secret"})
    t.equal("the administrator sets a new password", status, 200)
    wait_for(t, "the sign-in screen", lambda: driver.find_element(By.ID, "notice"), timeout=15)


@test("notes: cases.json in the browser agrees with the Swift client", start=False)
def notes_cases(t):
    kura = setup(t)
    driver = t.driver
    driver.get(f"{kura.url}/notes/")
    with open(os.path.join(APP, "cases.json")) as f:
        cases = json.load(f)
    wait_for(t, "the app", lambda: driver.execute_script("return !!window.notesApp"))
    got = driver.execute_async_script("""
      const [cases, done] = arguments;
      import('/notes/logic.js').then(L => done({
        normalize: cases.normalize.map(c => L.normalize(c.text)),
        names: cases.names.map(c => [L.nameProblem(c.name), L.nameProblem(c.name) ? null : L.nameKey(c.name)]),
        same: cases.sameName.map(c => L.nameKey(c.a) === L.nameKey(c.b)),
        search: cases.search.cases.map(c => L.search(cases.search.words, c.text, c.notebooks).map(w => w.id)),
        tokens: cases.search.tokens.map(c => (L.notebookForToken(cases.search.notebooks, c.text) || {id: null}).id),
        words: cases.words.map(c => L.wordProblem(c.word, c.explanation)),
        plans: cases.deletePlans.map(c => L.deletePlan(c.words, c.limit)),
      }), e => done({error: String(e)}));
    """, cases)
    t.equal("normalization", got["normalize"], [c["normalized"] for c in cases["normalize"]])
    t.equal("name problems and keys", got["names"], [[c["problem"], c["key"]] for c in cases["names"]])
    t.equal("same names", got["same"], [c["same"] for c in cases["sameName"]])
    t.equal("search", got["search"], [c["ids"] for c in cases["search"]["cases"]])
    t.equal("tokens", got["tokens"], [c["notebook"] for c in cases["search"]["tokens"]])
    t.equal("word problems", got["words"], [c["problem"] for c in cases["words"]])
    t.equal("delete plans", got["plans"], [{"atomic": c["atomic"], "commits": c["commits"]}
                                            for c in cases["deletePlans"]])
