"""The calculator app (apps/calc/web) served by Kura with `--public`: every case of apps/calc/cases.json through the
page's engine, keys typed and clicked, sign-up, the history and Ans synced between two browsers, and screenshots at
390 and 1280 px in Japanese and English."""

import json
import os

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import harness
from harness import ROOT, CheckFailed, test

APP = os.path.join(ROOT, "apps", "calc")
WEB = os.path.join(APP, "web")


def cases():
    with open(os.path.join(APP, "cases.json"), encoding="utf-8") as f:
        return json.load(f)["cases"]


def install_rules(kura):
    """The default rules plus the app's section (apps/calc/calc.rules), as the lead's merged rules file will be."""
    status, body, _ = kura.api("GET", "/api/admin/rules")
    with open(os.path.join(APP, "calc.rules"), encoding="utf-8") as f:
        section = f.read()
    status, body, _ = kura.api("POST", "/api/admin/rules", {"source": body["source"] + "\n" + section})
    if status != 200:
        raise CheckFailed(f"the rules were refused: {status} {body}")


until = harness.wait_script


def open_app(driver, kura, language="en"):
    driver.get(kura.url + "/")
    until(driver, "the app", "return window.calc && window.calc.ready")
    driver.execute_script("localStorage.setItem('calc.language', arguments[0])", language)
    driver.get(kura.url + "/")
    until(driver, "the app", "return window.calc && window.calc.ready")


def shown(driver):
    return driver.execute_script(
        "const c = window.calc.state.calculator;"
        "return {formula: c.formula, result: document.getElementById('result').textContent,"
        " answer: c.answer.toString()}")


def type_keys(driver, keys):
    """Types on the page itself (nothing focused), as a user at a keyboard does."""
    driver.execute_script("document.activeElement && document.activeElement.blur()")
    ActionChains(driver).send_keys(keys).perform()


def screenshot(driver, name):
    """The whole page at the current viewport width, into the run's screenshots directory."""
    harness.full_page_screenshot(driver, f"calc-{name}")


set_viewport = harness.set_viewport


def screenshots(t, driver, label):
    """390 and 1280 px, Japanese and English (the language switch is pressed for the second language)."""
    for language in ("ja", "en"):
        if driver.execute_script("return window.calc.state.language") != language:
            driver.find_element(By.ID, "language").click()
        t.equal(f"the page is in {language}", driver.execute_script("return document.documentElement.lang"),
                language)
        for width in (390, 1280):
            set_viewport(driver, width)
            overflow = driver.execute_script(
                "return document.documentElement.scrollWidth > document.documentElement.clientWidth")
            t.check(f"{label}, {language}, {width} px: nothing wider than the window", not overflow, "overflow")
            screenshot(driver, f"{label}-{language}-{width}")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@test("calculator: every case of apps/calc/cases.json in the page's engine; keys typed and clicked", start=False)
def calculator_cases(t):
    kura = t.start_kura(public=WEB)
    install_rules(kura)
    driver = t.driver
    open_app(driver, kura, "en")
    all_cases = cases()
    results = driver.execute_script(
        "return arguments[0].map((c) => window.calc.engine.runCase(c))", all_cases)
    for case, got in zip(all_cases, results):
        expected = {"display": case["display"], "result": case.get("result"), "error": case.get("error"),
                    "notices": case.get("notices", [])}
        actual = {k: got[k] for k in expected}
        if case.get("answer") is not None:
            expected["answer"] = case["answer"]
            actual["answer"] = got["answer"]
        t.equal(f"case: {case['name']}", actual, expected)

    # The keyboard.
    type_keys(driver, "2.3+5.3+3.3" + Keys.ENTER)
    t.equal("typed: 2.3+5.3+3.3 Enter", shown(driver), {"formula": "2.3+5.3+3.3", "result": "10.9",
                                                           "answer": "10.9"})
    type_keys(driver, "*2" + Keys.ENTER)
    t.equal("an operator after = goes on from Ans", shown(driver)["formula"] + " = " + shown(driver)["result"],
            "Ans×2 = 21.8")
    type_keys(driver, Keys.ESCAPE + "000+002" + Keys.BACKSPACE + "5(1" + Keys.ENTER)
    t.equal("leading zeros, Backspace, an unclosed (", shown(driver)["formula"], "0+5×(1")
    t.equal("... shows the error's message", shown(driver)["result"], "A “(” is not closed.")
    type_keys(driver, ")" + Keys.ENTER)
    t.equal("... closed, it calculates", shown(driver)["result"], "5")
    type_keys(driver, Keys.ESCAPE + "1/0=")
    t.equal("division by zero, with = typed", shown(driver)["result"], "Division by zero.")
    t.equal("the result is announced", driver.find_element(By.ID, "result").get_attribute("aria-live"), "polite")
    type_keys(driver, Keys.ESCAPE + "1..5++2")
    t.equal("a second point and a second operator", shown(driver)["formula"], "1.5+2")
    type_keys(driver, "+*")
    t.equal("an operator replacing another says so", driver.find_element(By.ID, "notice").text,
            "Two operators in a row: the new one replaces the first.")

    # The keypad, clicked.
    for key in ["AC", "(", "2", "+", "3", ")", "*", "4", "="]:
        driver.find_element(By.CSS_SELECTOR, f'#keypad [data-key="{key}"]').click()
    t.equal("clicked: (2+3)×4 =", shown(driver)["formula"] + " = " + shown(driver)["result"], "(2+3)×4 = 20")
    for key in ["Ans", "/", "8", "="]:
        driver.find_element(By.CSS_SELECTOR, f'#keypad [data-key="{key}"]').click()
    t.equal("clicked: Ans÷8 =", shown(driver)["result"], "2.5")

    # Editing a number inside the formula: the result follows.
    driver.find_element(By.CSS_SELECTOR, '#formula [data-ordinal="0"]').click()
    editor = driver.find_element(By.CSS_SELECTOR, "#formula input")
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys("5" + Keys.ENTER)
    t.equal("a number edited in place", shown(driver)["formula"] + " = " + shown(driver)["result"], "Ans÷5 = 0.5")
    # Ans was 2.5 when edited: ordinal 0 is the first *number*, the 8.
    type_keys(driver, Keys.ESCAPE + "1/3*3" + Keys.ENTER)
    t.equal("1/3*3", shown(driver)["result"], "1")
    history = driver.execute_script(
        "return [...document.querySelectorAll('#history li')].map(li => li.textContent)")
    t.check("without an account the history is kept in the page", any("1÷3×3" in h for h in history), history)
    type_keys(driver, Keys.ESCAPE + "2/3" + Keys.ENTER)
    t.equal("2/3 to 20 digits", shown(driver)["result"], "0.66666666666666666667")
    visible = "return [!document.getElementById('auth-form').hidden, !document.getElementById('guest-status').hidden]"
    t.equal("signed out, the sign-in form shows", driver.execute_script(visible), [True, False])
    driver.find_element(By.ID, "guest").click()
    t.equal("'continue without an account' folds it away", driver.execute_script(visible), [False, True])
    driver.find_element(By.ID, "show-sign-in").click()
    t.equal("... and it comes back", driver.execute_script(visible), [True, False])
    screenshots(t, driver, "guest")


@test("calculator: sign up, history and Ans follow the user to a second browser", start=False)
def calculator_sync(t):
    kura = t.start_kura(public=WEB)
    install_rules(kura)
    first = t.driver
    open_app(first, kura, "ja")
    until(first, "the sign-in form", "return !document.getElementById('auth-form').hidden")
    first.find_element(By.ID, "email").send_keys("calc@example.com")
    first.find_element(By.ID, "password").send_keys("secret1")
    first.find_element(By.ID, "sign-up").click()
    until(first, "signed in", "return window.calc.state.user && !document.getElementById('account-status').hidden")
    until(first, "an empty history", "return window.calc.state.history.status === 'ready'")
    t.equal("an empty history says so", first.find_element(By.ID, "history-state").text, "まだ計算履歴はありません。")
    type_keys(first, "6*7" + Keys.ENTER)
    until(first, "the entry in the history, sent",
          "const e = window.calc.state.history.entries; return e.length === 1 && !e[0].pending")
    t.equal("the first browser's history", first.execute_script(
        "return window.calc.state.history.entries.map(e => e.formula + '=' + e.result)"), ["6×7=42"])

    # A second browser (its own profile: another device) signs in to the same account.
    second = harness.make_driver()
    t.cleanup.append(second.quit)
    open_app(second, kura, "en")
    until(second, "the sign-in form", "return !document.getElementById('auth-form').hidden")
    second.find_element(By.ID, "email").send_keys("calc@example.com")
    second.find_element(By.ID, "password").send_keys("wrong-password")
    second.find_element(By.ID, "sign-in").click()
    until(second, "the sign-in error", "return document.getElementById('auth-error').textContent")
    t.equal("a wrong password is explained", second.find_element(By.ID, "auth-error").text,
            "Wrong email or password.")
    second.find_element(By.ID, "password").clear()
    second.find_element(By.ID, "password").send_keys("secret1" + Keys.ENTER)
    until(second, "the synced history", "return window.calc.state.history.entries.length === 1")
    t.equal("Ans came with the history", shown(second)["answer"], "42")
    type_keys(second, "a+1" + Keys.ENTER)
    t.equal("Ans used in the second browser", shown(second)["formula"] + " = " + shown(second)["result"],
            "Ans+1 = 43")
    until(first, "the second browser's entry in the first",
          "return window.calc.state.history.entries.length === 2")
    t.equal("the first browser sees it, newest first", first.execute_script(
        "return window.calc.state.history.entries.map(e => e.formula + '=' + e.result)"), ["Ans+1=43", "6×7=42"])
    t.equal("... and its Ans follows", shown(first)["answer"], "43")
    type_keys(first, "a*2" + Keys.ENTER)
    t.equal("Ans from the other browser in a new formula", shown(first)["result"], "86")
    until(second, "the third entry", "return window.calc.state.history.entries.length === 3")

    # What the server holds (read as the administrator).
    uid = first.execute_script("return window.calc.state.user.uid")
    status, body, _ = kura.api("GET", f"/api/docs/calc/{uid}/history")
    t.equal("the history is in Kura at calc/{uid}/history", status, 200)
    t.equal("... three entries", len((body or {}).get("documents", [])), 3)

    # Offline: a calculation is kept and sent when the network is back.
    second.execute_cdp_cmd("Network.enable", {})
    second.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    type_keys(second, Keys.ESCAPE + "100-1" + Keys.ENTER)
    until(second, "the offline entry, pending",
          "const e = window.calc.state.history.entries; return e.length === 4 && e[0].pending")
    t.check("offline: the entry is shown at once, marked pending", True)
    second.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    until(first, "the offline entry, sent later", "return window.calc.state.history.entries.length === 4",
          timeout=40)
    t.equal("... and reaches the other browser", shown(first)["answer"], "99")
    screenshots(t, first, "signed-in")

    second.find_element(By.ID, "clear-history").click()
    until(first, "the history cleared everywhere", "return window.calc.state.history.entries.length === 0")
    t.equal("a cleared history says it is empty (the page is in English after the screenshots)",
            first.find_element(By.ID, "history-state").text, "No calculations yet.")
