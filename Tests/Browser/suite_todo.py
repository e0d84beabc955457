"""The to-do app (apps/todo) as a person uses it: served by Kura (`--public`) with its rules section; sign-up and
sign-in errors shown as sentences, add, mark done, delete by button and by swipe, two tabs live, an item added by
the `kura-todo` command appearing in the page, an item added offline (the server stopped) showing at once and
reaching the server when it is back, and a password reset followed from the mail through Kura's action page in
English and Japanese. Screenshots of every main screen at 390 and 1280 px go to <screenshots>/todo-*.png (docs/apps.md
shows some of them)."""

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import harness
from harness import ROOT, CheckFailed, full_page_screenshot, set_viewport, test, wait_script

APP = os.path.join(ROOT, "apps", "todo")
PASSWORD = "secret-pass-1"


def setup(t, settings=None):
    """A Kura serving apps/todo/web at /todo/ with the seed apps' rules for it (apps/rules.sh todo)."""
    root = tempfile.mkdtemp(prefix="kura-todo-public-")
    t.cleanup.append(lambda: shutil.rmtree(root, ignore_errors=True))
    shutil.copytree(os.path.join(APP, "web"), os.path.join(root, "todo"))
    kura = t.start_kura(public=root, settings=settings or {})
    rules = subprocess.run([os.path.join(ROOT, "apps", "rules.sh"), "todo"], capture_output=True, text=True,
                           check=True).stdout
    status, body, _ = kura.api("POST", "/api/admin/rules", {"source": rules})
    t.equal("the to-do rules section compiles and is in force", (status, body and body.get("error")), (200, None))
    return kura


def shots(t, name):
    """The current screen at 1280 and 390 px as todo-<name>-<width>.png, checking nothing scrolls sideways."""
    driver = t.driver
    driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 1, "y": 1})
    # The passing announcement (a toast) would cover the footer in every picture.
    driver.execute_script("const s = document.getElementById('status'); if (s) s.textContent = ''")
    for width in (1280, 390):
        set_viewport(driver, width)
        time.sleep(0.3)
        overflow = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
        t.check(f"{name} at {width} px has no horizontal overflow", not overflow, "the page scrolls sideways")
        full_page_screenshot(driver, f"todo-{name}-{width}")
        # A smaller copy for docs/apps.md (docs/apps/todo-*.png are copied from these).
        height = driver.execute_script("return document.documentElement.scrollHeight")
        small = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 0.5 if width > 600 else 0.75}})
        directory = os.path.join(getattr(harness, "SCREENSHOTS", None) or os.path.join(ROOT, ".build", "browser-screenshots"), "small")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, f"todo-{name}-{width}.png"), "wb") as f:
            f.write(base64.b64decode(small["data"]))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    time.sleep(0.2)


def text_of(t, selector):
    return t.driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e && !e.hidden ? e.textContent.trim() : ''", selector)


def titles(t):
    return t.driver.execute_script(
        "return [...document.querySelectorAll('.todos .title')].map(e => e.textContent)")


def wait_titles(t, expected, what):
    try:
        wait_script(t.driver, what, "return JSON.stringify([...document.querySelectorAll('.todos .title')]"
                                    f".map(e => e.textContent)) === {json.dumps(json.dumps(expected, separators=(',', ':'), ensure_ascii=False))}")
    except CheckFailed as failure:
        raise CheckFailed(f"{failure}; the list shows {titles(t)}, the page: {text_of(t, 'main')[:300]}") from None


def fill(t, selector, value):
    field = t.driver.find_element(By.CSS_SELECTOR, selector)
    field.clear()
    field.send_keys(value)
    return field


def auth_form(t, tab, email, password):
    """Fills and submits the sign-in or sign-up form; returns the alert's sentence, or '' once signed in."""
    driver = t.driver
    wait_script(driver, "the sign-in screen", "return !!document.querySelector('.auth form')")
    button = [b for b in driver.find_elements(By.CSS_SELECTOR, ".tabs .tab") if b.text == tab][0]
    if button.get_attribute("aria-pressed") != "true":
        button.click()
    fill(t, "#email", email)
    fill(t, "#password", password).send_keys(Keys.ENTER)
    wait_script(driver, f"an answer to {tab}",
                "const a = document.getElementById('auth-error');"
                " return (a && !a.hidden && a.textContent) || !!document.getElementById('new-todo')")
    return text_of(t, "#auth-error")


def add(t, text):
    field = fill(t, "#new-todo", text)
    field.send_keys(Keys.ENTER)


def server_todos(t, kura, uid):
    status, body, _ = kura.api("GET", f"/api/docs/users/{uid}/todos")
    if status != 200:
        raise CheckFailed(f"listing the to-dos failed: {status} {body}")
    return {doc["name"].rsplit("/", 1)[-1] if "name" in doc else doc["id"]: doc["data"] for doc in body["documents"]}


def uid_of(kura, email):
    status, body, _ = kura.api("GET", "/api/admin/users?pageSize=1000")
    return [u["uid"] for u in body["users"] if u["email"] == email][0]


def kura_todo(t, kura, session, *arguments):
    tool = os.path.join(os.path.dirname(os.path.abspath(t.binary)), "kura-todo")
    result = subprocess.run([tool, "--server", kura.url, "--session", session, *arguments], capture_output=True,
                            text=True, timeout=60)
    if result.returncode != 0:
        raise CheckFailed(f"kura-todo {arguments} failed: {result.stdout}{result.stderr}")
    return result.stdout


def newest_link(t, kura, email, mode):
    deadline = time.monotonic() + 15
    while True:
        status, body, _ = kura.api("GET", "/api/admin/outbox?limit=100")
        links = [m.get("actionLink") or "" for m in (body["mails"] if status == 200 else []) if m["to"] == email]
        links = [link for link in links if f"mode={mode}" in link]
        if links:
            return links[0]  # the outbox lists the newest first
        if time.monotonic() > deadline:
            raise CheckFailed(f"no {mode} link mailed to {email}")
        time.sleep(0.1)


def swipe_left(t, selector):
    """A touch swipe from the right of the row to its left, through the DevTools protocol."""
    driver = t.driver
    box = driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        " return {x: r.left + r.width * 0.6, y: r.top + r.height / 2, width: r.width}", selector)
    send = lambda kind, x: driver.execute_cdp_cmd("Input.dispatchTouchEvent", {  # noqa: E731
        "type": kind, "touchPoints": [] if kind == "touchEnd" else [{"x": x, "y": box["y"]}]})
    send("touchStart", box["x"])
    for step in range(1, 11):
        send("touchMove", box["x"] - box["width"] * 0.05 * step)
    send("touchEnd", 0)


@test("todo: sign-up and sign-in errors as sentences, add, done, delete by button and by swipe, two tabs live, "
      "kura-todo in the same list, English and Japanese", start=False)
def walk(t):
    kura = setup(t, {"auth.rateLimits": "true"})
    driver = t.driver
    driver.get(f"{kura.url}/todo/")
    wait_script(driver, "the sign-in screen", "return !!document.querySelector('.auth form')")
    t.equal("the app speaks the browser's language (English)", driver.execute_script(
        "return document.documentElement.lang"), "en")
    shots(t, "signin")

    # apps/todo/cases.json, which the Swift client's tests run too, through the web app's own logic.js.
    with open(os.path.join(APP, "cases.json")) as f:
        cases = json.load(f)
    failures = driver.execute_async_script("""
        const [cases, done] = arguments;
        import('./logic.js').then(({ cleanTitle, countTodos }) => {
          const failures = [];
          for (const c of cases.titles) {
            const got = cleanTitle(c.input.repeat(c.repeat ?? 1));
            const want = c.error ? { error: c.error } : { title: c.title.repeat(c.titleRepeat ?? 1) };
            if (JSON.stringify(got) !== JSON.stringify(want)) failures.push([c.input.slice(0, 20), got]);
          }
          for (const c of cases.counts) {
            const got = countTodos(c.done.map((done) => ({ done })));
            if (got.open !== c.open || got.done !== c.doneCount) failures.push([c.done, got]);
          }
          done(failures);
        }, (error) => done([String(error)]));
    """, cases)
    t.equal("logic.js passes apps/todo/cases.json", failures, [])

    sentence = auth_form(t, "Sign up", "not-an-email", PASSWORD)
    t.check("an invalid address is a sentence", "does not look like an email address" in sentence, sentence)
    t.check("the rule for passwords is said before submitting",
            "At least 6 characters" in text_of(t, "#password-rule"), text_of(t, "#password-rule"))
    sentence = auth_form(t, "Sign up", "ann@example.com", "abc")
    t.check("a weak password is a sentence", "too short" in sentence and "6 characters" in sentence, sentence)
    shots(t, "signup-error")
    t.equal("a good sign-up opens the list", auth_form(t, "Sign up", "ann@example.com", PASSWORD), "")
    uid = uid_of(kura, "ann@example.com")
    wait_script(driver, "the empty list", "return !!document.querySelector('.state.empty')")
    shots(t, "empty")

    add(t, "  Buy   milk ")
    wait_titles(t, ["Buy milk"], "the first to-do in the list")
    add(t, "Call the dentist")
    add(t, "Water the plants")
    wait_titles(t, ["Buy milk", "Call the dentist", "Water the plants"], "three to-dos")
    add(t, "   ")
    t.check("a blank to-do is refused with a sentence", "Type what needs doing" in text_of(t, "#add-error"),
            text_of(t, "#add-error"))
    # The list shows queued writes at once; the server has them a moment later.
    deadline = time.time() + 15
    while len(stored := server_todos(t, kura, uid)) < 3 and time.time() < deadline:
        time.sleep(0.1)
    t.equal("the server has them in kura-todo's layout (title, done, createdAt)",
            sorted((d["title"], d["done"], isinstance(d.get("createdAt"), str)) for d in stored.values()),
            [("Buy milk", False, True), ("Call the dentist", False, True), ("Water the plants", False, True)])

    # Rows are kept across updates (the app updates a row in place), so nothing is taken from under the pointer.
    rows = driver.find_elements(By.CSS_SELECTOR, ".todos .todo")
    driver.find_elements(By.CSS_SELECTOR, ".todos .check")[0].click()
    wait_script(driver, "the first to-do marked done", "return !!document.querySelector('.todo.is-done')")
    deadline = time.time() + 10
    while not any(d["title"] == "Buy milk" and d["done"] for d in server_todos(t, kura, uid).values()):
        if time.time() > deadline:
            raise CheckFailed("marking done did not reach the server")
        time.sleep(0.1)
    t.check("marking done reaches the server", True)
    wait_script(driver, "the change confirmed in the list", "return !document.querySelector('.pending')")
    t.check("the rows are the same elements after the updates, the done one updated in place",
            driver.execute_script("return arguments[0].every((row) => row.isConnected) && "
                                  "arguments[0][0].classList.contains('is-done')", rows))

    delete = driver.find_elements(By.CSS_SELECTOR, ".todos .delete")[1]
    t.check("the delete button is named for its to-do", delete.get_attribute("aria-label") ==
            "Delete “Call the dentist”", delete.get_attribute("aria-label"))
    delete.click()
    wait_titles(t, ["Buy milk", "Water the plants"], "the deleted to-do gone")

    # A second tab: the same session, the same list, live both ways.
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(f"{kura.url}/todo/")
    wait_titles(t, ["Buy milk", "Water the plants"], "the list in a second tab")
    add(t, "Added in tab two")
    driver.switch_to.window(first)
    wait_titles(t, ["Buy milk", "Water the plants", "Added in tab two"], "tab two's to-do in the first tab")
    t.check("an item added in another tab appears at once", True)

    # kura-todo sees the same list, and what it adds appears in the page.
    session = os.path.join(tempfile.mkdtemp(prefix="kura-todo-session-"), "session.json")
    t.cleanup.append(lambda: shutil.rmtree(os.path.dirname(session), ignore_errors=True))
    kura_todo(t, kura, session, "login", "ann@example.com", PASSWORD)
    listed = kura_todo(t, kura, session, "list")
    t.check("kura-todo lists what the web app added", all(x in listed for x in
            ["[x]", "Buy milk", "Water the plants", "Added in tab two"]), listed)
    kura_todo(t, kura, session, "add", "From", "the", "terminal")
    wait_titles(t, ["Buy milk", "Water the plants", "Added in tab two", "From the terminal"],
                "kura-todo's to-do in the page")
    t.check("an item added by kura-todo appears in the page at once", True)
    shots(t, "list")

    # Swipe to delete on a touch screen.
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    set_viewport(driver, 390)
    time.sleep(0.3)
    swipe_left(t, ".todos li:nth-child(3)")
    wait_titles(t, ["Buy milk", "Water the plants", "From the terminal"], "the swiped to-do gone")
    t.check("a swipe to the left deletes on a touch screen", True)
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # The keyboard alone: Tab from the field reaches Add, then the first to-do's checkbox; Space toggles it.
    driver.find_element(By.ID, "new-todo").send_keys(Keys.TAB)
    t.equal("Tab from the field reaches Add", driver.execute_script("return document.activeElement.textContent"),
            "Add")
    driver.switch_to.active_element.send_keys(Keys.TAB)
    focused = driver.switch_to.active_element
    t.equal("... then the first to-do's checkbox", focused.get_attribute("aria-label"), "Mark “Buy milk” not done")
    focused.send_keys(Keys.SPACE)
    wait_script(driver, "Space marking the to-do not done", "return !document.querySelector('.todo.is-done')")
    t.check("Space toggles a to-do, and focus stays on it after the live update",
            driver.execute_script("return document.activeElement.classList.contains('check')"))

    # Japanese, from the switch.
    driver.find_element(By.ID, "lang-switch").click()
    wait_script(driver, "the Japanese list", "return document.getElementById('list-title').textContent === 'やること'")
    t.check("the count is a Japanese sentence", "残り" in text_of(t, "#count"), text_of(t, "#count"))
    shots(t, "list-ja")
    driver.find_element(By.ID, "lang-switch").click()

    # Sign out; wrong credentials, an address in use, then too many attempts, each as a sentence.
    driver.find_element(By.ID, "sign-out").click()
    wait_script(driver, "the sign-in screen after signing out", "return !!document.querySelector('.auth form')")
    sentence = auth_form(t, "Sign up", "ann@example.com", PASSWORD)
    t.check("an address in use is a sentence", "already has an account" in sentence, sentence)
    sentence = auth_form(t, "Sign in", "ann@example.com", "wrong-password")
    t.check("wrong credentials are a sentence", "email or the password is wrong" in sentence, sentence)
    for _ in range(8):
        sentence = auth_form(t, "Sign in", "ann@example.com", "wrong-password")
        if "Too many attempts" in sentence:
            break
    t.check("too many attempts is a sentence", "Too many attempts" in sentence, sentence)
    shots(t, "signin-error")


@test("todo: a to-do added offline shows at once, reaches the server when it is back, and kura-todo sees it",
      start=False)
def offline(t):
    kura = setup(t, {"realtime.heartbeatSeconds": "1"})
    driver = t.driver
    driver.get(f"{kura.url}/todo/")
    auth_form(t, "Sign up", "olly@example.com", PASSWORD)
    uid = uid_of(kura, "olly@example.com")
    add(t, "Online first")
    wait_titles(t, ["Online first"], "the online to-do")
    wait_script(driver, "the online to-do sent", "return !document.querySelector('.pending')")
    kura.stop()
    add(t, "Written offline")
    wait_titles(t, ["Online first", "Written offline"], "the offline to-do shown at once")
    t.check("the offline to-do is marked not sent yet", "Not sent yet" in text_of(t, ".todos li:nth-child(2)"),
            text_of(t, ".todos li:nth-child(2)"))
    wait_script(driver, "the offline notice", "return !!document.querySelector('.offline')", timeout=30)
    shots(t, "offline")
    kura.start()
    deadline = time.time() + 40
    while not any(d["title"] == "Written offline" for d in server_todos(t, kura, uid).values()):
        if time.time() > deadline:
            raise CheckFailed("the offline to-do did not reach the server")
        time.sleep(0.2)
    t.check("the offline to-do reached the server after reconnecting", True)
    wait_script(driver, "the pending mark gone", "return !document.querySelector('.pending')", timeout=30)
    session = os.path.join(tempfile.mkdtemp(prefix="kura-todo-session-"), "session.json")
    t.cleanup.append(lambda: shutil.rmtree(os.path.dirname(session), ignore_errors=True))
    kura_todo(t, kura, session, "login", "olly@example.com", PASSWORD)
    listed = kura_todo(t, kura, session, "list")
    t.check("kura-todo sees the to-do written offline", "Written offline" in listed, listed)


def reset_through_action_page(t, kura, email, language):
    """Asks for a reset mail in the app, follows the link through the action page and back to the app."""
    driver = t.driver
    driver.execute_cdp_cmd("Network.setUserAgentOverride", {
        "userAgent": driver.execute_script("return navigator.userAgent"), "acceptLanguage": language})
    driver.get(f"{kura.url}/todo/")
    wait_script(driver, "the sign-in screen", "return !!document.querySelector('.auth form')")
    driver.find_element(By.CSS_SELECTOR, ".auth .link").click()
    fill(t, "#reset-email", email).send_keys(Keys.ENTER)
    wait_script(driver, "the reset answer", "const n = document.querySelector('.notice'); return n && !n.hidden")
    link = newest_link(t, kura, email, "resetPassword")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)
    t.equal(f"the {language} mail's link carries its language", query.get("lang"), [language])
    t.equal(f"... and the app to return to", query.get("continueUrl"), [f"{kura.url}/todo/"])
    driver.get(link)
    wait_script(driver, "the action page", "return !!document.querySelector('.panel form')")
    styled = driver.execute_script(
        "return getComputedStyle(document.querySelector('.panel')).borderRadius")
    t.equal(f"the {language} action page is styled", styled, "14px")
    t.equal("the page is in the mail's language", driver.execute_script("return document.documentElement.lang"),
            language)
    rules = text_of(t, "#password-rules")
    t.check("the password rules are said before submitting", ("6" in rules), rules)
    reveal = driver.find_element(By.CSS_SELECTOR, "button.reveal")
    t.check("the show-password toggle is there (the page's script runs under its policy)", reveal.is_displayed())
    field = driver.find_element(By.ID, "new-password")
    field.send_keys("brand-new-pass")
    reveal.click()
    t.equal("the toggle shows the password", field.get_attribute("type"), "text")
    shots(t, f"action-reset-{language}")
    reveal.click()
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_script(driver, "the result page", "return !!document.querySelector('.panel.done')")
    shots(t, f"action-changed-{language}")
    back = driver.find_element(By.CSS_SELECTOR, ".actions a")
    t.equal("the result leads back to the app", back.get_attribute("href"), f"{kura.url}/todo/")
    back.click()
    wait_script(driver, "the app again", "return !!document.querySelector('.auth form')")
    t.equal("the new password signs in", auth_form(t, "Sign in" if language == "en" else "ログイン", email,
                                                   "brand-new-pass"), "")
    driver.find_element(By.ID, "sign-out").click()
    wait_script(driver, "signed out", "return !!document.querySelector('.auth form')")
    driver.get(link)
    wait_script(driver, "the used link's page", "return !!document.querySelector('.panel.problem')")
    t.check("a used link says so", ("already used" in driver.page_source) if language == "en"
            else ("すでに使われた" in driver.page_source), text_of(t, ".panel"))
    shots(t, f"action-used-{language}")
    return link


@test("todo: a password reset mail followed through Kura's styled action page, in English and Japanese",
      start=False)
def reset(t):
    kura = setup(t)
    driver = t.driver
    for email in ("rita@example.com", "rie@example.com"):
        status, _, _ = kura.api("POST", "/api/auth/signup", {"email": email, "password": PASSWORD})
        t.check(f"{email} signs up", status in (200, 201), status)
    try:
        reset_through_action_page(t, kura, "rita@example.com", "en")
        reset_through_action_page(t, kura, "rie@example.com", "ja")
        # The verification page, and a bogus link.
        driver.get(newest_link(t, kura, "rita@example.com", "verifyEmail"))
        wait_script(driver, "the verification page", "return !!document.querySelector('.panel form')")
        shots(t, "action-verify-en")
        driver.get(f"{kura.url}/auth/action?mode=resetPassword&code=bogus&lang=en")
        wait_script(driver, "the bogus link's page", "return !!document.querySelector('.panel.problem')")
        t.check("a bogus link gets a page that says so", "can no longer be used" in driver.page_source)
        shots(t, "action-bogus-en")
    finally:
        driver.execute_cdp_cmd("Network.setUserAgentOverride", {
            "userAgent": driver.execute_script("return navigator.userAgent"), "acceptLanguage": "en-US"})


@test("todo: a plain `kura serve` shows a styled notice at / with a favicon")
def home(t):
    driver = t.driver
    driver.get(t.kura.url + "/")
    wait_script(driver, "the notice", "return !!document.querySelector('.panel h1')")
    t.equal("the notice is styled", driver.execute_script(
        "return getComputedStyle(document.querySelector('.panel')).borderRadius"), "14px")
    with urllib.request.urlopen(t.kura.url + "/favicon.ico", timeout=5) as response:
        t.equal("/favicon.ico is served", (response.status, response.headers["Content-Type"]),
                (200, "image/svg+xml"))
    shots(t, "home")
