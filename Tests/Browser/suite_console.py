"""The admin console at /_/ (web/console/), driven as a person would: sign-in (a non-admin refused), users,
data (a version conflict reported, a live update arriving), rules (an error shown at its line), and screenshots of
every section at 390 and 1280 px; the Server section's traffic chart, and its node list on PostgreSQL."""

import json

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import harness
from cluster import Node, Postgres
from harness import CheckFailed, test


def text_of(driver, selector):
    return driver.execute_script(f"return document.querySelector({json.dumps(selector)})?.textContent ?? ''")


def wait_text(driver, selector, needle, what=None, timeout=20):
    return harness.wait_script(
        driver, what or f"{needle!r} in {selector}",
        f"const n = document.querySelector({json.dumps(selector)}); return n && n.textContent.includes({json.dumps(needle)})",
        timeout)


def sign_in(t, kura, remember=False):
    driver = t.driver
    driver.get(kura.url + "/_/")
    harness.wait_script(driver, "the sign-in form", "return !!document.querySelector('#key-form')")
    driver.find_element(By.ID, "key").send_keys(kura.admin_key)
    if remember:
        driver.find_element(By.ID, "remember").click()
    driver.find_element(By.ID, "key").send_keys(Keys.ENTER)
    harness.wait_script(driver, "the console after sign-in", "return !document.querySelector('#nav').hidden")


def shots(t, name):
    for width in (390, 1280):
        harness.set_viewport(t.driver, width)
        overflow = t.driver.execute_script(
            "return document.documentElement.scrollWidth > document.documentElement.clientWidth")
        t.check(f"{name}, {width} px: nothing wider than the window", not overflow, "overflow")
        harness.full_page_screenshot(t.driver, f"console-{name}-{width}")
    t.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def open_section(driver, hash_, ready):
    driver.execute_script(f"location.hash = {json.dumps(hash_)}")
    harness.wait_script(driver, hash_, f"return !!({ready})")


@test("console: nothing before sign-in, a non-admin account refused, the admin key kept out of localStorage")
def signin(t):
    kura = t.kura
    status, _, _ = kura.api("POST", "/api/auth/signup", {"email": "pat@example.com", "password": "secret-pw"})
    if status != 201:
        raise CheckFailed(f"sign-up answered {status}")
    driver = t.driver
    driver.get(kura.url + "/_/")
    harness.wait_script(driver, "the sign-in form", "return !!document.querySelector('#key-form')")
    t.check("the sections are hidden before sign-in",
            driver.execute_script("return document.querySelector('#nav').hidden && !document.querySelector('table')"))
    shots(t, "signin")

    driver.find_element(By.ID, "email").send_keys("pat@example.com")
    driver.find_element(By.ID, "password").send_keys("secret-pw")
    driver.find_element(By.ID, "password").send_keys(Keys.ENTER)
    wait_text(driver, "#signin-error", "PERMISSION_DENIED", "the non-admin refused")
    t.check("the refusal says why", "admin claim" in text_of(driver, "#signin-error"), text_of(driver, "#signin-error"))
    t.check("still nothing shown", driver.execute_script("return document.querySelector('#nav').hidden"))

    driver.find_element(By.ID, "key").send_keys("not-the-key")
    driver.find_element(By.ID, "key").send_keys(Keys.ENTER)
    harness.wait_script(driver, "a wrong key refused",
                        "return /\\(([A-Z_]+)\\)$/.test(document.querySelector('#signin-error').textContent)")
    t.check("a wrong key is refused with its code", "INVALID_ID_TOKEN" in text_of(driver, "#signin-error"),
            text_of(driver, "#signin-error"))

    driver.find_element(By.ID, "key").clear()
    sign_in(t, kura)
    t.check("the key is in sessionStorage only", driver.execute_script(
        "return sessionStorage.getItem('kura.console.key') !== null && localStorage.getItem('kura.console.key') === null"))
    t.check("the key is never in the URL", kura.admin_key not in driver.current_url, driver.current_url)
    driver.refresh()
    harness.wait_script(driver, "the console after a reload", "return !document.querySelector('#nav').hidden")
    driver.find_element(By.ID, "signout").click()
    harness.wait_script(driver, "the sign-in form again", "return !!document.querySelector('#key-form')")
    t.check("signing out forgets the key", driver.execute_script("return sessionStorage.getItem('kura.console.key') === null"))

    # An account with the admin claim gets in.
    status, body, _ = kura.api("GET", "/api/admin/users?email=pat%40example.com")
    uid = body["users"][0]["uid"]
    kura.api("PATCH", f"/api/admin/users/{uid}", {"customClaims": {"admin": True}})
    driver.find_element(By.ID, "email").send_keys("pat@example.com")
    driver.find_element(By.ID, "password").send_keys("secret-pw")
    driver.find_element(By.ID, "password").send_keys(Keys.ENTER)
    harness.wait_script(driver, "the admin account signed in", "return !document.querySelector('#nav').hidden")
    wait_text(driver, "#user-list", "pat@example.com", "the users list as the admin account")


@test("console: users are created, found, disabled after a confirmation, and shown as such")
def users(t):
    kura = t.kura
    for i in range(3):
        kura.api("POST", "/api/admin/users", {"email": f"user{i}@example.com", "password": "secret-pw",
                                              "emailVerified": i == 0})
    sign_in(t, kura)
    driver = t.driver
    wait_text(driver, "#user-list", "user2@example.com")
    driver.find_element(By.CSS_SELECTOR, "details.panel > summary").click()
    driver.find_element(By.ID, "new-email").send_keys("new@example.com")
    driver.find_element(By.ID, "new-password").send_keys("secret-pw")
    driver.find_element(By.CSS_SELECTOR, "#new-user button[type=submit]").click()
    wait_text(driver, "#user-detail", "new@example.com", "the new user's details")
    _, body, _ = kura.api("GET", "/api/admin/users?email=new%40example.com")
    t.equal("the account exists", len(body["users"]), 1)
    uid = body["users"][0]["uid"]

    driver.find_element(By.ID, "toggle-disabled").click()
    harness.wait_script(driver, "the confirmation", "return document.querySelector('#confirm').open")
    driver.find_element(By.ID, "confirm-cancel").click()
    _, body, _ = kura.api("GET", f"/api/admin/users/{uid}")
    t.equal("cancelled: still enabled", body["user"]["disabled"], False)
    driver.find_element(By.ID, "toggle-disabled").click()
    harness.wait_script(driver, "the confirmation", "return document.querySelector('#confirm').open")
    driver.find_element(By.ID, "confirm-ok").click()
    wait_text(driver, "#detail-disabled", "yes", "the user shown disabled")
    _, body, _ = kura.api("GET", f"/api/admin/users/{uid}")
    t.equal("confirmed: disabled on the server", body["user"]["disabled"], True)

    claims = driver.find_element(By.ID, "claims")
    claims.clear()
    claims.send_keys('{"role": ')
    driver.find_element(By.XPATH, "//button[contains(., 'Save claims')]").click()
    wait_text(driver, "#user-detail", "INVALID_CLAIMS", "bad JSON refused before sending")
    claims.clear()
    claims.send_keys('{"role": "editor"}')
    driver.find_element(By.XPATH, "//button[contains(., 'Save claims')]").click()
    harness.wait_script(driver, "the claims saved", "return document.querySelector('#user-list').textContent.includes('editor')")
    _, body, _ = kura.api("GET", f"/api/admin/users/{uid}")
    t.equal("the claims on the server", body["user"]["customClaims"], {"role": "editor"})

    search = driver.find_element(By.ID, "user-search")
    search.send_keys("user1@example.com")
    search.send_keys(Keys.ENTER)
    harness.wait_script(driver, "the search result", "return document.querySelectorAll('#user-list tbody tr').length === 1")
    t.check("found by address", "user1@example.com" in text_of(driver, "#user-list"))
    driver.find_element(By.XPATH, "//button[contains(., 'Show all')]").click()
    harness.wait_script(driver, "all users", "return document.querySelectorAll('#user-list tbody tr').length === 4")
    driver.find_element(By.CSS_SELECTOR, f'[data-uid="{uid}"]').click()
    wait_text(driver, "#user-detail", "new@example.com")
    shots(t, "users")


@test("console: data tree, typed document, an edit refused on a version conflict, a live update while open")
def data(t):
    kura = t.kura
    kura.api("PUT", "/api/docs/posts/p1", {"data": {"title": "first", "likes": 3, "score": 2.5,
                                                      "at": "2026-11-29T15:59:28.039012Z", "tags": ["a", "b"]}})
    kura.api("PUT", "/api/docs/posts/p1/comments/c1", {"data": {"text": "hi"}})
    kura.api("PUT", "/api/docs/users/u1", {"data": {"name": "Ann"}})
    sign_in(t, kura)
    driver = t.driver

    open_section(driver, "#data/posts", "document.querySelector('#documents table')")
    wait_text(driver, "#live", "Live", "the open collection listening")
    t.check("the tree lists the top-level collections", all(
        driver.execute_script(f"return !!document.querySelector('[data-collection=\"{c}\"]')") for c in ("posts", "users")))
    # A write by someone else arrives while the collection is open.
    kura.api("PUT", "/api/docs/posts/p2", {"data": {"title": "second"}})
    wait_text(driver, "#documents", "p2", "the live update")
    t.check("the new document arrived without a reload", True)
    shots(t, "data-collection")

    # The query builder shows kura.js and KuraClient code and counts.
    driver.find_element(By.CSS_SELECTOR, "#query-form").find_element(By.XPATH, "..").find_element(By.TAG_NAME, "summary").click()
    driver.find_element(By.XPATH, "//button[contains(., 'Add filter')]").click()
    driver.find_element(By.CSS_SELECTOR, ".f-field").send_keys("title")
    driver.find_element(By.CSS_SELECTOR, ".f-value").send_keys('"second"')
    t.check("kura.js code", "where(\"title\", \"==\", \"second\")" in text_of(driver, "#code-js"), text_of(driver, "#code-js"))
    t.check("KuraClient code", '.whereField("title", isEqualTo: "second")' in text_of(driver, "#code-swift"),
            text_of(driver, "#code-swift"))
    driver.find_element(By.XPATH, "//button[normalize-space(.)='Count']").click()
    wait_text(driver, "#count-result", "1", "the count")

    open_section(driver, "#data/posts/p1", "document.querySelector('#doc-view')")
    view = text_of(driver, "#doc-view")
    t.check("types shown: int, double, time, array", all(w in view for w in ("int", "double", "time", "array")), view)
    wait_text(driver, "#subcollections", "comments", "the subcollections")
    shots(t, "data-document")

    driver.find_element(By.ID, "doc-edit").click()
    editor = driver.find_element(By.ID, "doc-editor")
    driver.execute_script("arguments[0].value = arguments[0].value.replace('\"first\"', '\"mine\"')", editor)
    # Someone else writes the document after it was read.
    kura.api("PATCH", "/api/docs/posts/p1", {"data": {"title": "theirs"}})
    driver.find_element(By.ID, "doc-save").click()
    wait_text(driver, "#doc-error", "FAILED_PRECONDITION", "the conflict reported")
    t.check("the conflict is a sentence naming the version read", "version 1" in text_of(driver, "#doc-error"),
            text_of(driver, "#doc-error"))
    _, body, _ = kura.api("GET", "/api/docs/posts/p1")
    t.equal("their write was not overwritten", body["data"]["title"], "theirs")

    # A syntax error is shown before sending; after a reload the edit goes through, doubles stay doubles.
    driver.find_element(By.XPATH, "//button[normalize-space(.)='Reload']").click()
    wait_text(driver, "#doc-version", "version 2")
    driver.find_element(By.ID, "doc-edit").click()
    editor = driver.find_element(By.ID, "doc-editor")
    driver.execute_script("arguments[0].value = arguments[0].value.replace('\"theirs\"', '\"mine\" x')", editor)
    driver.find_element(By.ID, "doc-save").click()
    wait_text(driver, "#doc-error", "line", "the syntax error with its line")
    driver.execute_script("arguments[0].value = arguments[0].value.replace('\"mine\" x', '\"mine\"')", editor)
    driver.find_element(By.ID, "doc-save").click()
    harness.wait_script(driver, "the edit saved", "return document.querySelector('#doc-version')?.textContent.includes('version 3') || document.querySelector('#doc-error')?.textContent.includes('(')")
    t.check("the edit saved", "version 3" in text_of(driver, "#doc-version"), text_of(driver, "#doc-error"))
    status, body, _ = kura.api("GET", "/api/docs/posts/p1")
    t.equal("the edit is stored", body["data"]["title"], "mine")
    t.equal("the double stays a double", body["data"]["score"], 2.5)

    driver.find_element(By.ID, "doc-delete").click()
    harness.wait_script(driver, "the confirmation", "return document.querySelector('#confirm').open")
    driver.find_element(By.ID, "confirm-ok").click()
    harness.wait_script(driver, "back to the collection", "return location.hash === '#data/posts'")
    status, _, _ = kura.api("GET", "/api/docs/posts/p1")
    t.equal("deleted after the confirmation", status, 404)


@test("console: a rules error is shown at its line and column; a test table runs; publishing shows the diff")
def rules(t):
    kura = t.kura
    sign_in(t, kura)
    driver = t.driver
    open_section(driver, "#rules", "document.querySelector('#rules-editor')")
    source = ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
              "    match /posts/{id} {\n      allow read: if true;\n      allow write: if request.auth != null\n"
              "    }\n  }\n}\n")
    editor = driver.find_element(By.ID, "rules-editor")
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", editor, source)
    driver.find_element(By.ID, "rules-check").click()
    wait_text(driver, "#rules-error", "INVALID_RULES", "the rules error")
    error = text_of(driver, "#rules-error")
    t.check("the error names line 7", "line 7" in error, error)
    bad = driver.execute_script("return [...document.querySelectorAll('#rules-gutter .bad')].map(n => n.dataset.line)")
    t.equal("the gutter marks that line", bad, ["7"])
    caret = driver.execute_script(
        "const e = document.querySelector('#rules-editor'); return e.value.slice(0, e.selectionStart).split('\\n').length")
    t.equal("the caret is on that line", caret, 7)
    shots(t, "rules-error")

    fixed = source.replace("request.auth != null\n", "request.auth != null;\n")
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", editor, fixed)
    table = driver.find_element(By.ID, "rules-table")
    driver.execute_script("arguments[0].value = arguments[1]", table, json.dumps({"cases": [
        {"name": "anyone reads", "auth": None, "method": "get", "path": "/posts/p1", "expect": "allow"},
        {"name": "signed-out writes", "auth": None, "method": "create", "path": "/posts/p1", "data": {}, "expect": "allow"},
    ]}))
    driver.find_element(By.ID, "rules-run").click()
    wait_text(driver, "#rules-summary", "1 passed, 1 failed", "the table's results")

    driver.find_element(By.ID, "rules-publish").click()
    harness.wait_script(driver, "the diff", "return document.querySelector('#confirm').open && !!document.querySelector('#rules-diff')")
    t.check("the diff shows the added match", "match /posts/{id}" in text_of(driver, "#rules-diff"), text_of(driver, "#rules-diff"))
    shots(t, "rules-diff")
    driver.find_element(By.ID, "confirm-ok").click()
    wait_text(driver, "#notice", "Published.", "published")
    _, body, _ = kura.api("GET", "/api/admin/rules")
    t.equal("the new rules are in force", body["source"], fixed)

    # The versions list has the rules before and the ones published; rolling back shows the diff and publishes.
    harness.wait_script(driver, "two versions", "return document.querySelectorAll('#rules-versions tr').length === 2")
    driver.find_element(By.CSS_SELECTOR, "#rules-versions [data-version]").click()
    harness.wait_script(driver, "the rollback's diff", "return document.querySelector('#confirm').open && !!document.querySelector('#rules-diff')")
    driver.find_element(By.ID, "confirm-ok").click()
    harness.wait_script(driver, "three versions", "return document.querySelectorAll('#rules-versions tr').length === 3")
    _, body, _ = kura.api("GET", "/api/admin/rules")
    t.check("the earlier rules are in force again", "match /posts/{id}" not in body["source"], body["source"][:200])


@test("console: indexes, mail and server sections show what the server holds")
def more(t):
    kura = t.kura
    kura.api("POST", "/api/admin/indexes", {"collectionGroup": "todos", "queryScope": "COLLECTION", "fields": [
        {"fieldPath": "done", "order": "ASCENDING"}, {"fieldPath": "at", "order": "DESCENDING"}]})
    kura.api("POST", "/api/auth/signup", {"email": "held@example.com", "password": "secret-pw"})
    kura.api("POST", "/api/auth/password-reset", {"email": "held@example.com"})
    sign_in(t, kura)
    driver = t.driver
    open_section(driver, "#indexes", "document.querySelector('#index-list table')")
    t.check("the index and its state", "todos" in text_of(driver, "#index-list") and "done ASCENDING" in
            text_of(driver, "#index-list"), text_of(driver, "#index-list"))
    shots(t, "indexes")
    open_section(driver, "#mail", "document.querySelector('#mail-list table')")
    harness.wait_script(driver, "the held mail", "return document.querySelector('#mail-list').textContent.includes('held@example.com')")
    t.check("a held mail has its link", driver.execute_script(
        "return [...document.querySelectorAll('#mail-list a')].some(a => a.href.includes('/auth/action'))"))
    rows = driver.execute_script("return document.querySelectorAll('#mail-list tbody tr').length")
    driver.find_element(By.CSS_SELECTOR, "#mail-list [data-resend]").click()
    harness.wait_script(driver, "the confirmation", "return document.querySelector('#confirm').open")
    driver.find_element(By.ID, "confirm-ok").click()
    harness.wait_script(driver, "the mail queued again",
                        f"return document.querySelectorAll('#mail-list tbody tr').length === {rows + 1}")
    shots(t, "mail")
    open_section(driver, "#server", "document.querySelector('#server-facts dt')")
    t.check("the server's version and engine", "sqlite" in text_of(driver, "#server-facts"), text_of(driver, "#server-facts"))
    shots(t, "server")
    # Japanese.
    driver.find_element(By.ID, "lang").click()
    harness.wait_script(driver, "Japanese", "return document.documentElement.lang === 'ja'")
    t.check("the navigation in Japanese", "ユーザー" in text_of(driver, "#nav"), text_of(driver, "#nav"))
    shots(t, "server-ja")
    driver.find_element(By.ID, "lang").click()


@test("console: the server section charts the traffic the test makes, says it in a caption and a table")
def traffic(t):
    kura = t.kura
    sign_in(t, kura)
    driver = t.driver
    # Traffic of the test's own: writes, reads and a few misses.
    for index in range(40):
        kura.api("PUT", f"/api/docs/load/d{index}", {"fields": {"n": index}})
        kura.api("GET", f"/api/docs/load/d{index}")
    for index in range(5):
        kura.api("GET", "/api/docs/load/missing")
    open_section(driver, "#server", "document.querySelector('#traffic[data-state=\"chart\"] svg')")
    caption = text_of(driver, "#traffic-caption")
    numbers = driver.execute_script("""
        const caption = document.querySelector('#traffic-caption').textContent;
        const rate = Number((caption.match(/([0-9.]+) req\\/s/) ?? [])[1]);
        const p99 = Number((caption.match(/p99 ([0-9.]+) ms/) ?? [])[1]);
        const requests = Number((caption.match(/\\((\\d+) requests/) ?? [])[1]);
        return {rate, p99, requests};""")
    t.check("the caption gives a non-zero rate", numbers["rate"] > 0, caption)
    t.check("the caption gives a non-zero p99", numbers["p99"] > 0, caption)
    t.check("the caption counts the test's 85 requests", numbers["requests"] >= 85, caption)
    t.check("the chart draws request bars and latency lines", driver.execute_script(
        "const svg = document.querySelector('#traffic-chart svg');"
        "return svg.querySelectorAll('rect.bar').length > 0 && svg.querySelectorAll('.p50, .p99').length >= 2"))
    t.check("the chart's axes are labelled", driver.execute_script(
        "const labels = [...document.querySelectorAll('#traffic-chart text')].map(n => n.textContent);"
        "return labels.includes('req/s') && labels.includes('ms') && labels.includes('now')"))
    t.check("the chart itself is hidden from screen readers, the caption is not", driver.execute_script(
        "return document.querySelector('#traffic-chart svg').getAttribute('aria-hidden') === 'true'"
        " && document.querySelector('#traffic figcaption').textContent.length > 0"))
    driver.find_element(By.CSS_SELECTOR, "#traffic details summary").click()
    rows = driver.execute_script("return document.querySelectorAll('#traffic details tbody tr').length")
    t.check("the table lists the intervals with traffic", rows >= 1, rows)
    t.check("a single node on SQLite", "single node" in text_of(driver, "#server-facts"), text_of(driver, "#server-facts"))
    t.check("no node list on SQLite", driver.execute_script("return document.querySelector('#server-nodes').hidden"))
    # The section updates itself every 5 s: the next update counts the console's own requests too.
    before = numbers["requests"]
    harness.wait_script(driver, "the next update", f"""
        const m = document.querySelector('#traffic-caption').textContent.match(/\\((\\d+) requests/);
        return m && Number(m[1]) > {before}""")
    driver.find_element(By.CSS_SELECTOR, "#traffic details summary").click()
    shots(t, "server-traffic")
    driver.find_element(By.ID, "lang").click()
    harness.wait_script(driver, "Japanese", "return document.documentElement.lang === 'ja'")
    wait_text(driver, "#traffic-caption", "直近", "the caption in Japanese", timeout=10)
    harness.set_viewport(driver, 390)
    harness.full_page_screenshot(driver, "console-server-traffic-ja-390")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.find_element(By.ID, "lang").click()


@test("console: with metrics off, the server section says the traffic is not counted",
      settings={"metrics.enabled": "false"})
def traffic_off(t):
    sign_in(t, t.kura)
    driver = t.driver
    open_section(driver, "#server", "document.querySelector('#traffic[data-state=\"off\"]')")
    t.check("the caption says metrics are off", "metrics.enabled=false" in text_of(driver, "#traffic-caption"),
            text_of(driver, "#traffic-caption"))
    t.check("no chart is drawn", not driver.execute_script("return !!document.querySelector('#traffic-chart svg')"))


@test("console: on PostgreSQL the server section lists the nodes sharing the database and its size", start=False)
def nodes_on_postgres(t):
    postgres = Postgres()
    t.cleanup.append(postgres.close)
    nodes = [Node(t.binary, postgres.url) for _ in range(2)]
    t.servers.extend(nodes)
    sign_in(t, nodes[0])
    driver = t.driver
    open_section(driver, "#server", "document.querySelectorAll('#node-list tbody tr').length === 2")
    listed = text_of(driver, "#node-list")
    for node in nodes:
        t.check(f"node {node.port} listed with its address", f"127.0.0.1:{node.port}" in listed, listed)
    t.equal("one row is this node", driver.execute_script(
        "return [...document.querySelectorAll('#node-list tbody tr')].filter(r => r.textContent.includes('this node')).length"), 1)
    t.check("both alive", driver.execute_script(
        "return document.querySelectorAll('#node-list .badge.on').length === 2"), listed)
    facts = text_of(driver, "#server-facts")
    t.check("the cluster row counts the nodes", "2 nodes alive" in facts, facts)
    t.check("the data size is PostgreSQL's", "postgres" in facts and ("KiB" in facts or "MiB" in facts), facts)
    shots(t, "server-nodes")
    # The second node stops: it leaves the list.
    nodes[1].stop()
    harness.wait_script(driver, "the stopped node gone from the list",
                        "return document.querySelectorAll('#node-list tbody tr').length === 1", timeout=30)
