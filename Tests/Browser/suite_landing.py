"""The landing page `make run` serves at `/` (apps/index.html): each seed app linked and reachable, the
development notes, the language switch, keyboard focus, and screenshots at 390 and 1280 px in both languages."""

import os
import subprocess
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import harness
from harness import ROOT, CheckFailed, test

APPS = os.path.join(ROOT, "apps")


@test("landing: / links every seed app, each loads, in Japanese and English", start=False)
def landing(t):
    kura = t.start_kura(public=APPS)
    # make run's rules: apps/rules.sh puts the apps' sections together; the server must accept them.
    source = subprocess.run([os.path.join(APPS, "rules.sh")], check=True, capture_output=True, text=True).stdout
    status, body, _ = kura.api("POST", "/api/admin/rules", {"source": source})
    if status != 200:
        raise CheckFailed(f"apps/rules.sh's rules were refused: {status} {body}")
    t.check("apps/rules.sh's rules hold every app's section",
            all(f"match /{c}/" in source for c in ("quizzes", "calc", "places", "notes", "users/{uid}/todos")), source[:400])

    driver = t.driver
    driver.get(kura.url + "/?lang=en")
    harness.wait_script(driver, "the landing page", "return document.documentElement.lang === 'en'")
    links = driver.execute_script("return [...document.querySelectorAll('.apps a')].map(a => a.getAttribute('href'))")
    t.equal("the apps linked from /", sorted(links), ["calc/web/", "notes/web/", "places/web/", "quiz/web/", "todo/web/"])
    names = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".apps .name")]
    t.equal("their names, in English", names, ["Guess the 7th place", "Calculator", "Where am I", "Notebooks", "To-do"])
    t.check("the page says where held mail goes in development", "printed whole in the terminal" in
            driver.find_element(By.CSS_SELECTOR, ".notes").text, driver.find_element(By.CSS_SELECTOR, ".notes").text)

    # Keyboard: Tab reaches the language switch and then the first app; Enter on the switch changes the language.
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.TAB)
    t.equal("Tab first reaches the language switch",
            driver.execute_script("return document.activeElement.dataset.lang"), "ja")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    harness.wait_script(driver, "Japanese", "return document.documentElement.lang === 'ja'")
    t.equal("the switch says which language is on",
            driver.find_element(By.CSS_SELECTOR, '[data-lang="ja"]').get_attribute("aria-pressed"), "true")
    names = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".apps .name")]
    t.equal("their names, in Japanese", names, ["7位を当てろ！", "電卓", "ここはどこ", "単語帳", "やることリスト"])
    driver.get(kura.url + "/")
    harness.wait_script(driver, "the saved language", "return document.documentElement.lang === 'ja'")
    t.check("the choice is remembered", True)

    for language in ("ja", "en"):
        driver.get(kura.url + f"/?lang={language}")
        harness.wait_script(driver, language, f"return document.documentElement.lang === '{language}'")
        for width in (390, 1280):
            harness.set_viewport(driver, width)
            overflow = driver.execute_script(
                "return document.documentElement.scrollWidth > document.documentElement.clientWidth")
            t.check(f"{language}, {width} px: nothing wider than the window", not overflow, "overflow")
            harness.full_page_screenshot(driver, f"landing-{language}-{width}")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # Each link leads to its app, served from the same Kura.
    for href, ready in (("quiz/web/", "document.querySelector('main')"),
                        ("calc/web/", "window.calc && window.calc.ready"),
                        ("places/web/", "document.querySelector('main')"),
                        ("notes/web/", "window.notesApp && window.notesApp.phase !== 'loading'"),
                        ("todo/web/", "document.querySelector('main')")):
        driver.get(kura.url + "/?lang=en")
        driver.find_element(By.CSS_SELECTOR, f'.apps a[href="{href}"]').click()
        harness.wait_script(driver, href, f"return location.pathname === '/{href}' && !!({ready})")
        t.check(f"{href} loads", True)
    with urllib.request.urlopen(kura.url + "/favicon.svg", timeout=10) as response:
        t.equal("the favicon is there (no 404 in the console)", response.headers["Content-Type"], "image/svg+xml")
