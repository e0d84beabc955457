"""A real browser's EventSource against a Kura listen stream (ListenBrowserTests.swift runs this).

Usage: listen_browser.py BASE_URL TOKEN

Opens BASE_URL/ in headless Chromium (Debian's chromium + chromium-driver, driven by Selenium), opens an
EventSource on /api/listen from that page (same origin, token in the URL as browsers must), writes documents
through the JSON API while it listens, and prints one JSON object on stdout: {"events": [...]} with every event the
page saw (name, lastEventId, data). Exits non-zero with a message on stderr when something does not happen in time.
"""

import json
import sys
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

BASE, TOKEN = sys.argv[1], sys.argv[2]
QUERY = {"collection": "todos", "where": [{"field": "done", "op": "==", "value": False}], "orderBy": [{"field": "rank"}]}

LISTEN = """
window.__events = [];
const url = '/api/listen?target=todos&token=' + encodeURIComponent(arguments[0])
    + '&query=' + encodeURIComponent(arguments[1]);
const source = new EventSource(url);
window.__source = source;
for (const name of ['connected', 'snapshot', 'changes', 'error', 'reset', 'overflow', 'auth_revoked']) {
  source.addEventListener(name, e => window.__events.push({name, lastEventId: e.lastEventId, data: JSON.parse(e.data)}));
}
"""


def api(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + TOKEN)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


def wait_for(driver, predicate, what, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        events = driver.execute_script("return window.__events")
        if predicate(events):
            return events
        time.sleep(0.05)
    sys.stderr.write(f"timed out waiting for {what}; events: {json.dumps(events)[:2000]}\n")
    sys.exit(1)


def changes(events):
    return [(c["type"], c["document"]["id"]) for e in events if e["name"] == "changes" for c in e["data"]["changes"]]


def main():
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"]:
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        api("PUT", "/api/docs/todos/a", {"data": {"title": "eggs", "done": False, "rank": 1}})
        driver.get(BASE + "/")
        driver.execute_script(LISTEN, TOKEN, json.dumps(QUERY))
        wait_for(driver, lambda es: any(e["name"] == "snapshot" for e in es), "the snapshot")
        api("PUT", "/api/docs/todos/b", {"data": {"title": "milk", "done": False, "rank": 0}})
        wait_for(driver, lambda es: ("added", "b") in changes(es), "added b")
        api("PUT", "/api/docs/todos/a", {"data": {"title": "eggs", "done": True, "rank": 1}})
        wait_for(driver, lambda es: ("removed", "a") in changes(es), "removed a")
        api("PATCH", "/api/docs/todos/b", {"data": {"title": "oat milk"}})
        events = wait_for(driver, lambda es: ("modified", "b") in changes(es), "modified b")
        driver.execute_script("window.__source.close()")
        print(json.dumps({"events": events}))
    finally:
        driver.quit()


main()
