"""The "7位を当てろ！" app (apps/quiz) as a person uses it: served by Kura (`--public`), the quizzes imported with
`kura-quiz import`, played with clicks and the keyboard through to the ranking, the share fallback, scores kept
across a sign-up, the leaderboard, a reload with the server gone (service worker + kura.js persistence), editing
as an administrator and a write refused by the server for anyone else. Screenshots of every main screen at 390 and
1280 px, in Japanese and English, go to <screenshots>/quiz/ (docs/apps.md shows them)."""

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from harness import ROOT, CheckFailed, test

APP = os.path.join(ROOT, "apps", "quiz")
SHOTS = os.environ.get("KURA_QUIZ_SCREENSHOTS", os.path.join(ROOT, ".build", "browser-screenshots", "quiz"))


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
    """Full-page screenshots of the current screen at 1280 and 390 px."""
    driver = t.driver
    os.makedirs(SHOTS, exist_ok=True)
    # The pointer off the page's controls, so no :hover shows.
    driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 1, "y": 1})
    for width in (1280, 390):
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": 900 if width > 600 else 844, "deviceScaleFactor": 1, "mobile": width < 600})
        time.sleep(0.3)
        height = driver.execute_script("return Math.ceil(document.documentElement.scrollHeight)")
        overflow = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
        t.check(f"{name} at {width} px has no horizontal overflow", not overflow, "the page scrolls sideways")
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": max(height, 600), "deviceScaleFactor": 1, "mobile": width < 600})
        time.sleep(0.2)
        data = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"]
        with open(os.path.join(SHOTS, f"{name}-{width}.png"), "wb") as f:
            f.write(base64.b64decode(data))
        # A smaller copy for docs/apps.md (docs/apps/quiz-*.png are copied from these).
        os.makedirs(os.path.join(SHOTS, "small"), exist_ok=True)
        small = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "clip": {
            "x": 0, "y": 0, "width": width, "height": max(height, 600), "scale": 0.5 if width > 600 else 0.75}})
        with open(os.path.join(SHOTS, "small", f"quiz-{name}-{width}.png"), "wb") as f:
            f.write(base64.b64decode(small["data"]))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    time.sleep(0.2)


def setup(t):
    """A Kura serving apps/quiz/web at /quiz/, with the quiz's rules and the shipped quizzes."""
    root = tempfile.mkdtemp(prefix="kura-quiz-public-")
    t.cleanup.append(lambda: shutil.rmtree(root, ignore_errors=True))
    shutil.copytree(os.path.join(APP, "web"), os.path.join(root, "quiz"))
    kura = t.start_kura(public=root, settings={"auth.rateLimits": "false"})
    with open(os.path.join(APP, "quiz.rules")) as f:
        section = f.read()
    status, body, _ = kura.api("POST", "/api/admin/rules", {"source": "rules_version = '1';\n" + section})
    t.equal("the quiz's rules section compiles and is in force", status, 200)
    tool = os.path.join(os.path.dirname(os.path.abspath(t.binary)), "kura-quiz")
    command = [tool, "--server", kura.url, "import", os.path.join(APP, "data", "quizzes.json"),
               "--admin-key-file", os.path.join(kura.data, "admin.key")]
    first = subprocess.run(command, capture_output=True, text=True, timeout=60)
    t.check("kura-quiz import creates the 12 quizzes", "12 created" in first.stdout, first.stdout + first.stderr)
    again = subprocess.run(command + ["--update"], capture_output=True, text=True, timeout=60)
    t.check("... and a second run changes nothing", "12 unchanged" in again.stdout, again.stdout + again.stderr)
    return kura


def open_app(t, kura, hash_=""):
    driver = t.driver
    # No Web Share API in this browser, so the fallback shows (headless Chromium on Linux has none either).
    script = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                    {"source": "delete Navigator.prototype.share; delete navigator.share;"})
    t.cleanup.append(lambda: driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                                                    {"identifier": script["identifier"]}))
    driver.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": kura.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    driver.get(f"{kura.url}/quiz/{hash_}")


def cards(t):
    return t.driver.find_elements(By.CSS_SELECTOR, ".cards li")


def status_text(t):
    return t.driver.execute_script("return document.getElementById('status').textContent")


def tab_to(t, text, limit=40):
    """Presses Tab until the focused element's text is `text`; returns it."""
    driver = t.driver
    for _ in range(limit):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        active = driver.switch_to.active_element
        if active.text.strip() == text:
            return active
    raise CheckFailed(f"Tab never reached {text!r}")


def server_doc(kura, path):
    status, body, _ = kura.api("GET", f"/api/docs/{path}")
    return body["data"] if status == 200 else None


def signup_rest(kura, email):
    request = urllib.request.Request(kura.url + "/api/auth/signup", method="POST",
                                     data=json.dumps({"email": email, "password": "secret-pw"}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@test("quiz: play through to the ranking with clicks and the keyboard, share, scores, offline, admin edit",
      start=False)
def quiz_app(t):
    kura = setup(t)
    driver = t.driver
    open_app(t, kura)

    # The list, in the browser's language (English here), then Japanese through the switch.
    wait_for(t, "the quiz list", lambda: len(cards(t)) == 12)
    t.equal("the page starts in the browser's language", driver.execute_script("return document.documentElement.lang"),
            "en")
    t.check("English titles in English", "Prefectures by area" in cards(t)[0].text, cards(t)[0].text)
    shot(t, "list-en")
    driver.find_element(By.ID, "lang-switch").click()
    wait_for(t, "Japanese", lambda: driver.find_element(By.CSS_SELECTOR, "h1").text == "クイズ一覧")
    t.equal("the switch turns the page Japanese", driver.execute_script("return document.documentElement.lang"), "ja")
    shot(t, "list-ja")

    # Quiz 1 by a click: 第7位は？ with the entries ranked 5–8.
    cards(t)[0].find_element(By.CSS_SELECTOR, "a.play").click()
    wait_for(t, "the question", lambda: len(driver.find_elements(By.CSS_SELECTOR, ".choice")) == 4)
    t.equal("the question is asked", driver.find_element(By.CSS_SELECTOR, "h1").text, "第7位は？")
    choices = sorted(b.text for b in driver.find_elements(By.CSS_SELECTOR, ".choice"))
    t.equal("the choices are the entries ranked 5 to 8", choices, sorted(["新潟県", "秋田県", "岐阜県", "青森県"]))
    t.equal("focus moved to the new screen's heading", driver.switch_to.active_element.text, "第7位は？")
    shot(t, "question-ja")

    # The answer by the keyboard: Tab to 岐阜県 (7th) and press Enter.
    tab_to(t, "岐阜県").send_keys(Keys.ENTER)
    wait_for(t, "the ranking", lambda: len(driver.find_elements(By.CSS_SELECTOR, ".ranking tbody tr")) == 10)
    t.check("the verdict says correct", "正解！" in driver.find_element(By.ID, "verdict").text,
            driver.find_element(By.ID, "verdict").text)
    seventh = driver.find_element(By.CSS_SELECTOR, ".ranking tr[data-rank='7']")
    t.equal("the pick is highlighted as the answer", sorted(seventh.get_attribute("class").split()),
            ["is-answer", "is-pick"])
    rows = [r.text for r in driver.find_elements(By.CSS_SELECTOR, ".ranking tbody tr")]
    t.check("the whole ranking with values", rows[0].startswith("1位") and "83,424 km²" in rows[0]
            and "9,186 km²" in rows[9], rows)
    wait_for(t, "the live region's verdict", lambda: "正解" in status_text(t))
    wait_for(t, "the play count on the server", lambda: (server_doc(kura, "quizzes/1") or {}).get("plays") == 1)
    t.check("anonymous: the score is kept on this device", wait_for(
        t, "the saved message", lambda: "この端末" in status_text(t), timeout=10))
    shot(t, "result-ja")

    # Share: no Web Share API here, so the copy-link button and the X intent.
    link = driver.find_element(By.ID, "share-link").get_attribute("value")
    t.check("the shared link opens this quiz", link.endswith("/quiz/#/q/1"), link)
    intent = driver.find_element(By.ID, "post-x").get_attribute("href")
    t.check("an X intent URL with the text and the link",
            intent.startswith("https://twitter.com/intent/tweet?text=") and urllib.parse.quote(link, safe="") in intent,
            intent)
    driver.find_element(By.ID, "copy-link").click()
    wait_for(t, "the copy confirmation", lambda: "コピー" in status_text(t))
    t.equal("copy link says it copied", status_text(t), "リンクをコピーしました。")
    copied = driver.execute_async_script(
        "const done = arguments[0]; navigator.clipboard.readText().then(done, e => done('error: ' + e))")
    t.equal("the clipboard holds the link", copied, link)

    # Next quiz, a wrong answer by a click, then the result in English.
    driver.find_element(By.ID, "next-quiz").click()
    wait_for(t, "quiz 2", lambda: driver.execute_script("return location.hash") == "#/q/2"
             and len(driver.find_elements(By.CSS_SELECTOR, ".choice:not([disabled])")) == 4)
    driver.find_element(By.XPATH, "//button[contains(@class,'choice') and text()='北海道']").click()
    wait_for(t, "the ranking of quiz 2", lambda: len(driver.find_elements(By.CSS_SELECTOR, ".ranking tbody tr")) == 10)
    t.check("the verdict says wrong and names the 7th", "兵庫県" in driver.find_element(By.ID, "verdict").text)
    eighth = driver.find_element(By.CSS_SELECTOR, ".ranking tr[data-rank='8']")
    t.equal("the wrong pick is highlighted", eighth.get_attribute("class"), "is-pick")
    driver.find_element(By.ID, "lang-switch").click()
    wait_for(t, "English", lambda: "Not quite!" in driver.find_element(By.ID, "verdict").text)
    t.check("the ranking in English", "Hyogo" in driver.find_element(By.CSS_SELECTOR, ".ranking").text)
    shot(t, "result-en")

    # The leaderboard while signed out: the device's score and the empty state.
    driver.find_element(By.CSS_SELECTOR, "[data-nav='leaderboard']").click()
    wait_for(t, "the leaderboard", lambda: "Nobody has a score yet" in driver.find_element(By.ID, "main").text)
    t.check("the device's own score", "1 of 2 correct" in driver.find_element(By.ID, "main").text)

    # Sign up: the two answers join the account.
    driver.find_element(By.CSS_SELECTOR, "[data-nav='account']").click()
    wait_for(t, "the sign-in form", lambda: driver.find_element(By.ID, "email"))
    driver.find_element(By.ID, "to-signup").click()
    wait_for(t, "the sign-up form", lambda: driver.find_element(By.ID, "display-name"))
    shot(t, "account-en")
    driver.find_element(By.ID, "email").send_keys("player@example.com")
    driver.find_element(By.ID, "password").send_keys("short")
    driver.find_element(By.ID, "submit").click()
    wait_for(t, "the weak-password sentence", lambda: "at least 6" in driver.find_element(By.ID, "form-error").text)
    driver.find_element(By.ID, "password").send_keys("-enough")
    driver.find_element(By.ID, "display-name").send_keys("Quizzer")
    driver.find_element(By.ID, "password").send_keys(Keys.ENTER)
    wait_for(t, "the upload message", lambda: "2 quizzes" in status_text(t), timeout=30)
    uid = driver.execute_script("return window.quizApp.user")
    totals = server_doc(kura, f"quizScores/{uid}")
    t.equal("the server has the anonymous answers as the account's", (totals or {}).get("played"), 2)
    t.equal("... one correct", (totals or {}).get("correct"), 1)
    wait_for(t, "the list as the player", lambda: len(cards(t)) == 12)
    t.check("answered quizzes are marked", "Solved" in cards(t)[0].text and "Answered" in cards(t)[1].text,
            [c.text for c in cards(t)[:2]])
    driver.find_element(By.CSS_SELECTOR, "[data-nav='leaderboard']").click()
    wait_for(t, "the leaderboard row", lambda: "Quizzer (you)" in driver.find_element(By.ID, "main").text)
    shot(t, "leaderboard-en")
    driver.find_element(By.ID, "lang-switch").click()
    wait_for(t, "Japanese leaderboard", lambda: "Quizzer（あなた）" in driver.find_element(By.ID, "main").text)
    shot(t, "leaderboard-ja")

    # Offline: the service worker controls the page; stop the server and reload.
    driver.find_element(By.CSS_SELECTOR, "[data-nav='list']").click()
    wait_for(t, "the list", lambda: len(cards(t)) == 12)
    wait_for(t, "the service worker", lambda: driver.execute_script("return !!navigator.serviceWorker.controller"))
    kura.stop()
    driver.refresh()
    wait_for(t, "the list from the caches", lambda: len(cards(t)) == 12, timeout=40)
    t.check("the page says it is offline", "オフライン" in driver.find_element(By.ID, "main").text)
    shot(t, "offline-ja")
    cards(t)[2].find_element(By.CSS_SELECTOR, "a.play").click()
    wait_for(t, "a quiz offline", lambda: len(driver.find_elements(By.CSS_SELECTOR, ".choice")) == 4)
    kura.start()

    # The admin claim: edit a quiz in the app.
    status, _, _ = kura.api("PATCH", f"/api/admin/users/{uid}", {"customClaims": {"admin": True}})
    t.equal("the admin claim is set through the admin API", status, 200)
    driver.get(f"{kura.url}/quiz/")
    wait_for(t, "edit links for the administrator", lambda: len(driver.find_elements(By.CSS_SELECTOR, ".card .edit")) == 12,
             timeout=30)
    driver.find_elements(By.CSS_SELECTOR, ".card .edit")[2].click()
    wait_for(t, "the editor", lambda: driver.find_element(By.ID, "title").get_attribute("value") == "日本の高い山ランキング")
    shot(t, "editor-ja")
    value = driver.find_element(By.ID, "value-1")
    value.clear()
    value.send_keys("abc")
    driver.find_element(By.ID, "save").click()
    wait_for(t, "the form's own check", lambda: "数値" in driver.find_element(By.ID, "problems").text)
    value.clear()
    value.send_keys("3776")
    title = driver.find_element(By.ID, "title")
    title.clear()
    title.send_keys("日本の高い山（標高）ランキング")
    driver.find_element(By.ID, "save").click()
    wait_for(t, "the edited quiz", lambda: driver.execute_script("return location.hash") == "#/q/3")
    wait_for(t, "the new title on the server",
             lambda: (server_doc(kura, "quizzes/3") or {}).get("title") == "日本の高い山（標高）ランキング")
    t.equal("the plays are kept", server_doc(kura, "quizzes/3").get("plays"), 0)
    driver.find_element(By.ID, "lang-switch").click()
    driver.get(f"{kura.url}/quiz/#/new")
    wait_for(t, "the create form in English", lambda: driver.find_element(By.CSS_SELECTOR, "h1").text == "Create a quiz")
    shot(t, "editor-en")

    # Anyone else: the server refuses the write, and the app says only administrators edit.
    other = signup_rest(kura, "other@example.com")
    status, body, _ = kura.api("PUT", "/api/docs/quizzes/1", {"data": {"title": "mine"}}, token=other["idToken"])
    t.equal("a non-admin write is refused by the server", (status, body["error"]["code"]), (403, "PERMISSION_DENIED"))
    status, body, _ = kura.api("PATCH", "/api/docs/quizzes/1", {"data": {"plays": 99}}, token=other["idToken"])
    t.equal("... and so is a play count that does not go up by one", status, 403)
    kura.api("PATCH", f"/api/admin/users/{uid}", {"customClaims": {"admin": False}})
    driver.get(f"{kura.url}/quiz/#/edit/1")
    driver.refresh()
    wait_for(t, "the administrators-only page",
             lambda: "Only administrators" in driver.find_element(By.ID, "main").text, timeout=30)
    result = driver.execute_async_script("""
      const done = arguments[0];
      import('/sdk/kura.js').then(kura => {
        const db = kura.getDatabase(kura.getApp());
        return kura.updateDoc(kura.doc(db, 'quizzes', '1'), {title: 'mine'}).then(() => 'allowed', e => e.code);
      }).then(done, e => done('error: ' + e));
    """)
    t.equal("the app's own session is refused too", result, "permission-denied")


@test("quiz: cases.json in the browser agrees with the Swift client", start=False)
def quiz_cases(t):
    kura = setup(t)
    driver = t.driver
    driver.get(f"{kura.url}/quiz/")
    with open(os.path.join(APP, "cases.json")) as f:
        cases = json.load(f)
    wait_for(t, "the app", lambda: driver.execute_script("return !!window.quizApp"))
    got = driver.execute_async_script("""
      const [cases, done] = arguments;
      import('/quiz/logic.js').then(L => done({
        orders: cases.choiceOrders.map(c => L.choiceOrder(c.seed)),
        answers: cases.answers.map(c => [L.isCorrect(c.pick), L.points(c.pick)]),
        tallies: cases.tallies.map(c => L.tally(c.answers.map(([quiz, pick]) => ({quiz, pick})))),
        numbers: cases.numbers.map(c => L.formatNumber(c.value)),
        rows: cases.seedRows.map(c => L.seedRow(c.id, c.quiz)),
      }), e => done({error: String(e)}));
    """, cases)
    t.equal("choice orders", got["orders"], [c["order"] for c in cases["choiceOrders"]])
    t.equal("answers and points", got["answers"], [[c["correct"], c["points"]] for c in cases["answers"]])
    t.equal("tallies", got["tallies"], [c["expect"] for c in cases["tallies"]])
    t.equal("numbers", got["numbers"], [c["text"] for c in cases["numbers"]])
    t.equal("seed rows", got["rows"], [c["row"] for c in cases["seedRows"]])
    # The server's seed JSON agrees with logic.js's seedRow for the shipped quizzes.
    with urllib.request.urlopen(kura.url + "/api/seed/hit_7th/datalist", timeout=10) as response:
        served = json.loads(response.read())
    quizzes = driver.execute_async_script("""
      const done = arguments[0];
      (async () => {
        const L = await import('/quiz/logic.js');
        const kura = await import('/sdk/kura.js');
        const db = kura.getDatabase(kura.getApp());
        const snapshot = await kura.getDocs(kura.collection(db, 'quizzes'));
        return snapshot.docs.map(d => L.seedRow(d.id, d.data())).sort((a, b) => a.id - b.id);
      })().then(done, e => done('error: ' + e));
    """)
    t.equal("the seed JSON served equals the page's mapping", served, quizzes)
