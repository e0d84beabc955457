"""The browser suite's machinery: a real `kura` per test (fresh data directory), a static server for the test
pages and kura.js (a second origin, so every call is cross-origin), and headless Chromium driven by Selenium.

Pages report through one object, `window.kuraTest` (see pages/runner.js): each step appends its checks there, and
the driver reads them after the step. Tests are the functions registered with `@test` in suite.py.
"""

import base64
import functools
import http.server
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SDK = os.path.join(ROOT, "web", "sdk")
PAGES = os.path.join(HERE, "pages")


def full_page_screenshot(driver, name):
    """The whole page at the current viewport width as `<name>.png` in the run's screenshots directory."""
    directory = globals().get("SCREENSHOTS") or os.path.join(ROOT, ".build", "browser-screenshots")
    os.makedirs(directory, exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    width = driver.execute_script("return window.innerWidth")
    image = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
    with open(os.path.join(directory, f"{name}.png"), "wb") as f:
        f.write(base64.b64decode(image["data"]))


class CheckFailed(Exception):
    """A page-side or driver-side check failed; the message lists what."""



def wait_script(driver, what, script, timeout=20):
    """Polls `script` (JavaScript returning a value) until it is truthy and returns it; on timeout fails with
    `what` and the page's last console messages."""
    deadline = time.time() + timeout
    while True:
        value = driver.execute_script(script)
        if value:
            return value
        if time.time() > deadline:
            try:
                console = [entry["message"] for entry in driver.get_log("browser")][-5:]
            except Exception:  # a driver without the browser log
                console = []
            raise CheckFailed(f"timed out waiting for {what}" + (f": {json.dumps(console)}" if console else ""))
        time.sleep(0.1)


def set_viewport(driver, width):
    """A phone (below 500 px: 844 px high, mobile) or desktop viewport `width` px wide."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 844 if width < 500 else 900, "deviceScaleFactor": 1, "mobile": width < 500})


def _ephemeral_range_start():
    """The first port of the kernel's `ip_local_port_range` (Linux's default, 32768, if unreadable)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


LOWEST_PORT = 11000
EPHEMERAL_START = _ephemeral_range_start()
_handed_out = set()


def free_port():
    """A port on 127.0.0.1 nothing is bound to now, below the kernel's ephemeral range (as the Swift tests'
    `TestEnvironment.freePort`): the kernel gives ports of that range to outgoing connections and to servers on port
    0, which could take it before kura binds it. From 11000 up: browsers refuse to fetch from some lower ports
    (Chromium's restricted ports end at 10080; a page's fetch to one fails at once with "Failed to fetch"). Never
    the same port twice."""
    for _ in range(1000 if EPHEMERAL_START > LOWEST_PORT else 0):
        port = random.randrange(LOWEST_PORT, EPHEMERAL_START)
        if port in _handed_out:
            continue
        _handed_out.add(port)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Kura:
    """One `kura serve` process on its own port and data directory; restartable on the same ones."""

    def __init__(self, binary, settings=None, public=None):
        self.binary = binary
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data = tempfile.mkdtemp(prefix="kura-browser-")
        self.settings = {"auth.rateLimits": "false", **(settings or {})}
        self.public = public
        self.process = None
        self.log_path = os.path.join(self.data, "server.log")
        self.start()

    def start(self):
        arguments = [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data", self.data,
                     "--log-level", "warn"]
        for key, value in self.settings.items():
            arguments += ["--set", f"{key}={value}"]
        if self.public:
            arguments += ["--public", self.public]
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"kura exited: {open(self.log_path).read()[-2000:]}")
            try:
                urllib.request.urlopen(self.url + "/api/health", timeout=1).read()
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.05)
        else:
            raise RuntimeError("kura did not start in 30 s")
        with open(os.path.join(self.data, "admin.key")) as f:
            self.admin_key = f.read().strip()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self):
        self.stop()
        self.start()

    def close(self):
        self.stop()
        shutil.rmtree(self.data, ignore_errors=True)

    def api(self, method, path, body=None, token=None, headers=None):
        """An API call as the administrator (or `token`); returns (status, JSON body or None, headers)."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", "Bearer " + (token or self.admin_key))
        if data is not None:
            request.add_header("Content-Type", "application/json")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None, response.headers
        except urllib.error.HTTPError as error:
            text = error.read()
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            return error.code, parsed, error.headers


class StaticHandler(http.server.SimpleHTTPRequestHandler):
    """Serves /sdk/… from web/sdk and everything else from Tests/Browser/pages, never cached."""

    def translate_path(self, path):
        path = path.split("?", 1)[0]
        if path.startswith("/sdk/"):
            return os.path.join(SDK, os.path.basename(path))
        return os.path.join(PAGES, path.lstrip("/") or "index.html")

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


StaticHandler.extensions_map = {**StaticHandler.extensions_map, ".js": "text/javascript", ".ts": "text/plain"}


class StaticServer:
    """The test pages' origin (http://127.0.0.1:PORT), in a thread."""

    def __init__(self):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StaticHandler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def make_driver():
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,900", *os.environ.get("KURA_BROWSER_ARGS", "").split()]:
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    return driver


STEP = """
const [module, step, args, done] = arguments;
window.runStep(module, step, args).then(value => done({ok: true, value}),
  error => done({ok: false, error: String(error && (error.stack || error.message) || error),
                 code: error && error.code}));
"""


class Page:
    """One browser tab on a test page, bound to one Kura server."""

    def __init__(self, context, handle, origin, options):
        self.context = context
        self.driver = context.driver
        self.handle = handle
        self.origin = origin
        self.options = options

    def focus(self):
        if self.driver.current_window_handle != self.handle:
            self.driver.switch_to.window(self.handle)

    def load(self):
        self.focus()
        kura = self.context.kura.url if self.context.kura else ""
        query = urllib.parse.urlencode({"kura": kura, "options": json.dumps(self.options)})
        self.driver.get(f"{self.origin}/index.html?{query}")
        deadline = time.time() + 15
        while not self.driver.execute_script("return window.kuraTest && window.kuraTest.ready"):
            if time.time() > deadline:
                raise CheckFailed("the test page did not load: " + json.dumps(self.browser_log()[-5:]))
            time.sleep(0.05)

    def step(self, module, name, *args):
        """Runs `name` from pages/steps/MODULE.js in the page; returns its value; page checks are collected."""
        self.focus()
        result = self.driver.execute_async_script(STEP, module, name, list(args))
        self.collect()
        if not result["ok"]:
            raise CheckFailed(f"{module}.{name} threw: {result['error']}")
        return result["value"]

    def collect(self):
        checks = self.driver.execute_script("const c = window.kuraTest.checks; window.kuraTest.checks = []; return c")
        for check in checks:
            self.context.record(check["name"], check["ok"], check.get("detail"))

    def wait(self, module, name, *args, timeout=20, what=None):
        """Polls step `name` until it returns a truthy value."""
        deadline = time.time() + timeout
        while True:
            value = self.step(module, name, *args)
            if value:
                return value
            if time.time() > deadline:
                raise CheckFailed(f"timed out waiting for {what or name}")
            time.sleep(0.1)

    def set_offline(self, offline):
        self.focus()
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    def block_urls(self, patterns):
        """Fails requests to URLs matching `patterns` (DevTools' Network.setBlockedURLs); [] unblocks."""
        self.focus()
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": patterns})

    def browser_log(self):
        try:
            return [entry["message"] for entry in self.driver.get_log("browser")]
        except Exception:  # noqa: BLE001 - logs are a diagnostic only
            return []


class Context:
    """What one test gets: its Kura, the pages' origin, the browser; and the record of its checks."""

    def __init__(self, driver, binary, static, name):
        self.driver = driver
        self.binary = binary
        self.static = static
        self.name = name
        self.kura = None
        self.pages = []
        self.checks = []
        self.servers = []
        self.cleanup = []

    def start_kura(self, **kwargs):
        self.kura = Kura(self.binary, **kwargs)
        self.servers.append(self.kura)
        return self.kura

    def page(self, origin=None, new_tab=True, **options):
        if new_tab and self.pages:
            self.driver.switch_to.new_window("tab")
        page = Page(self, self.driver.current_window_handle, origin or self.static.url, options)
        self.pages.append(page)
        page.load()
        return page

    def record(self, name, ok, detail=None):
        self.checks.append((name, ok, detail))

    def check(self, name, ok, detail=None):
        self.record(name, bool(ok), None if ok else detail)

    def equal(self, name, actual, expected):
        self.check(name, actual == expected, f"got {actual!r}, expected {expected!r}")

    def close(self, screenshot_dir):
        if self.pages:
            try:
                self.pages[0].focus()
                os.makedirs(screenshot_dir, exist_ok=True)
                base = os.path.join(screenshot_dir, "".join(c if c.isalnum() else "-" for c in self.name)[:80])
                for width, height in ((1280, 900), (390, 844)):
                    self.driver.set_window_size(width, height)
                    self.driver.save_screenshot(f"{base}-{width}.png")
                self.driver.set_window_size(1280, 900)
            except Exception:  # noqa: BLE001 - a screenshot is a diagnostic only
                pass
        # Leave one blank tab for the next test.
        handles = self.driver.window_handles
        for handle in handles[1:]:
            self.driver.switch_to.window(handle)
            self.driver.close()
        self.driver.switch_to.window(handles[0])
        self.driver.get("about:blank")
        for server in self.servers:
            server.close()
        for action in self.cleanup:
            action()


TESTS = []


def test(name, **kura_settings):
    """Registers a test; it receives a Context whose Kura is already started."""
    def register(function):
        @functools.wraps(function)
        def run(context):
            if kura_settings.get("start", True):
                context.start_kura(**{k: v for k, v in kura_settings.items() if k != "start"})
            function(context)
        TESTS.append((name, run))
        return function
    return register


import urllib.parse  # noqa: E402  (used by Page.load)
