"""The places app (apps/places/web) served by Kura with `--public`, on the sample data imported by `kura-places`:
geolocation, device orientation and permissions set through the DevTools protocol, the shared geo cases run
against geo.js, saved places live. Screenshots in Japanese and English at 390 and 1280 px go to
$KURA_PLACES_SCREENSHOTS (default .build/browser-screenshots/places) for docs/apps.md."""

import csv
import json
import os
import subprocess
import time

import harness
from harness import ROOT, CheckFailed, test

APP = os.path.join(ROOT, "apps", "places")
SHOTS = os.environ.get("KURA_PLACES_SCREENSHOTS", os.path.join(ROOT, ".build", "browser-screenshots", "places"))
ADMIN = ("places-admin@example.com", "admin-secret-1")


def set_up(t):
    """Kura serving the app, the app's rules with the default ones, an admin, the sample imported."""
    kura = t.start_kura(public=os.path.join(APP, "web"))
    with open(os.path.join(ROOT, "docs", "examples", "default.rules")) as f:
        rules = f.read()
    with open(os.path.join(APP, "places.rules")) as f:
        rules += "\n" + f.read()
    status, body, _ = kura.api("POST", "/api/admin/rules", {"source": rules})
    t.equal("the app's rules load", status, 200)
    status, body, _ = kura.api("POST", "/api/auth/signup", {"email": ADMIN[0], "password": ADMIN[1]})
    t.equal("an admin account", status, 201)
    uid = body["user"]["uid"]
    status, _, _ = kura.api("PATCH", f"/api/admin/users/{uid}", {"customClaims": {"admin": True}})
    t.equal("... gets the admin claim", status, 200)
    tool = os.path.join(os.path.dirname(os.path.abspath(t.binary)), "kura-places")
    if not os.path.exists(tool):
        raise CheckFailed(f"{tool} is missing: build it with `swift build --product kura-places`")
    result = subprocess.run(
        [tool, "--server", kura.url, "import", os.path.join(APP, "sample.csv"), "--email", ADMIN[0],
         "--password", ADMIN[1], "--json"], capture_output=True, text=True, timeout=300)
    t.equal("kura-places imports the sample", result.returncode, 0)
    if result.returncode != 0:
        raise CheckFailed(result.stderr)
    t.check("... with progress on standard error", "checked" in result.stderr, result.stderr[-300:])
    imported = json.loads(result.stdout)
    t.check("... every place written", imported["written"] == imported["places"] > 300, imported)
    return kura


def open_app(t, kura, lang):
    driver = t.driver
    driver.get(f"{kura.url}/?lang={lang}")
    wait(driver, "return window.placesReady === true", "the app to load")
    return driver


def wait(driver, script, what, timeout=20):
    return harness.wait_script(driver, what, script, timeout)


def field(driver, name):
    return driver.execute_script(
        "const e = document.querySelector(`[data-field='${arguments[0]}']`); return e && e.textContent", name)


def wait_city(driver, city):
    wait(driver, "const e = document.querySelector(\"[data-field='city']\"); return e && e.textContent === arguments[0]"
         .replace("arguments[0]", json.dumps(city)), f"the address to show {city}")


def screenshot(driver, name):
    """The whole page at 390 and 1280 CSS px wide (DevTools' device metrics, so the height fits the page)."""
    os.makedirs(SHOTS, exist_ok=True)
    for width, mobile in ((390, True), (1280, False)):
        metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": mobile}
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        time.sleep(0.3)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "height": max(height, 600)})
        time.sleep(0.3)
        driver.save_screenshot(os.path.join(SHOTS, f"{name}-{width}.png"))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def reset(driver):
    for command, arguments in (("Emulation.clearGeolocationOverride", {}),
                               ("DeviceOrientation.clearDeviceOrientationOverride", {}),
                               ("Browser.resetPermissions", {})):
        try:
            driver.execute_cdp_cmd(command, arguments)
        except Exception:  # noqa: BLE001 - best effort
            pass


GEO_CASES = """
const [cases, done] = arguments;
import('./geo.js').then((geo) => {
  const failures = [];
  const expect = (ok, what) => { if (!ok) failures.push(what); };
  for (const c of cases.geohash) expect(geo.encode(c.latitude, c.longitude, c.precision) === c.hash, `encode ${c.name}`);
  for (const c of cases.decode) {
    const b = geo.bounds(geo.decode(c.hash));
    expect(b.south === c.south && b.north === c.north && b.west === c.west && b.east === c.east, `bounds ${c.hash}`);
  }
  for (const c of cases.neighbours) {
    const got = geo.neighbours(geo.decode(c.hash)).map(geo.hashOf);
    expect(JSON.stringify(got) === JSON.stringify(c.neighbours), `neighbours ${c.hash}: ${got}`);
  }
  for (const c of cases.distance) {
    expect(Math.abs(geo.distance(c.from[0], c.from[1], c.to[0], c.to[1]) - c.km) < 0.01, `distance ${c.name}`);
  }
  for (const c of cases.direction) {
    const i = geo.directionIndex(c.heading);
    expect(geo.DIRECTIONS[i] === c.abbreviation && geo.DIRECTIONS_JA[i] === c.japanese, `direction ${c.heading}`);
  }
  for (const c of cases.nameKey) expect(geo.nameKey(c.name) === c.key, `nameKey ${c.name}`);
  const count = ['geohash', 'decode', 'neighbours', 'distance', 'direction', 'nameKey']
    .reduce((n, k) => n + cases[k].length, 0);
  done({failures, count});
}, (error) => done({failures: [String(error)], count: 0}));
"""


NEAREST_AGREES = """
const [rows, done] = arguments;
import('./geo.js').then(async (geo) => {
  // The sample in memory, sorted by geohash; reads answer ranges as Kura does.
  const places = rows.map(([lat, lon, name], i) => ({id: String(i).padStart(4, '0'), lat, lon, name,
    geohash: geo.encode(lat, lon, 9)})).sort((a, b) => a.geohash < b.geohash ? -1 : a.geohash > b.geohash ? 1 : 0);
  const read = async (lower, upper, limit) => places.filter((p) => p.geohash >= lower && p.geohash < upper).slice(0, limit);
  let seed = 7;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const failures = [];
  const points = [[90, 0], [-90, 0], [-17, -179.9], [0, 180], [65.8, -169.5]];
  for (let i = 0; i < 150; i++) points.push([random() * 180 - 90, random() * 360 - 180]);
  for (const limit of [3, 50]) {
    for (const [lat, lon] of points) {
      const found = await geo.nearest(lat, lon, read, {limit});
      let best = null;
      for (const p of places) {
        const d = geo.distance(lat, lon, p.lat, p.lon);
        if (!best || d < best.d || (d === best.d && p.id < best.p.id)) best = {p, d};
      }
      if (found.place.id !== best.p.id) failures.push(`${lat},${lon} limit ${limit}: ${found.place.name} not ${best.p.name}`);
    }
  }
  done({failures, count: points.length * 2});
}, (error) => done({failures: [String(error)], count: 0}));
"""


@test("places: the shared geo cases, Tokyo Station, a point at sea, the compass, refused location", start=False)
def places_location(t):
    kura = set_up(t)
    driver = t.driver
    try:
        open_app(t, kura, "en")
        with open(os.path.join(APP, "cases.json")) as f:
            cases = json.load(f)
        result = driver.execute_async_script(GEO_CASES, cases)
        t.equal("geo.js passes apps/places/cases.json", result["failures"], [])
        t.check("... all of it", result["count"] > 60, result["count"])
        with open(os.path.join(APP, "sample.csv"), newline="") as f:
            reader = csv.reader(f)
            next(reader)
            rows = [[float(r[0]), float(r[1]), r[2]] for r in reader]
        result = driver.execute_async_script(NEAREST_AGREES, rows)
        t.equal("geo.js's nearest-place search agrees with a scan of the sample", result["failures"], [])
        t.check("... at every point", result["count"] == 310, result["count"])

        # Location allowed: Tokyo Station resolves to Tokyo, JP, looked up as soon as the page loads.
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": kura.url, "permissions": ["geolocation", "sensors"]})
        driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                               {"latitude": 35.6812, "longitude": 139.7671, "accuracy": 10})
        open_app(t, kura, "en")
        wait_city(driver, "Tokyo")
        t.equal("Tokyo Station: the country", field(driver, "country"), "Japan (JP)")
        t.equal("... admin1", field(driver, "admin1"), "Tokyo")
        t.equal("... distance", field(driver, "distance"), "6.87 km")
        t.equal("... coordinates", field(driver, "coordinates"), "35.6812° N, 139.7671° E")

        # The compass: alpha turns counter-clockwise, so alpha 270 is a heading of 90°, east. Chromium applies an
        # orientation override to pages loaded after it, and a new one only after the old one is cleared.
        for alpha, expected in ((270, "E"), (315, "NE"), (0, "N"), (180, "S")):
            driver.execute_cdp_cmd("DeviceOrientation.clearDeviceOrientationOverride", {})
            driver.execute_cdp_cmd("DeviceOrientation.setDeviceOrientationOverride",
                                   {"alpha": alpha, "beta": 0, "gamma": 0})
            open_app(t, kura, "en")
            wait(driver, f"return document.getElementById('direction').dataset.abbreviation === '{expected}'",
                 f"the direction {expected} for alpha {alpha}")
            t.check(f"alpha {alpha} → {expected}", True)
        t.check("the direction shows its Japanese name", "南" in driver.find_element("id", "direction").text,
                driver.find_element("id", "direction").text)
        wait_city(driver, "Tokyo")

        # A point at sea (typed in): the nearest place and how far it is.
        driver.find_element("id", "lat").clear()
        driver.find_element("id", "lat").send_keys("30")
        driver.find_element("id", "lon").clear()
        driver.find_element("id", "lon").send_keys("150\n")
        wait_city(driver, "Tateyama")
        t.equal("at sea: the distance to the nearest place", field(driver, "distance"), "1,099 km")
        t.check("... and a note that it is far", driver.find_elements("css selector", ".address .note"), "no note")

        # Across the antimeridian: east of 180° the nearest place is in Fiji, west of it.
        driver.find_element("id", "lat").clear()
        driver.find_element("id", "lat").send_keys("-17")
        driver.find_element("id", "lon").clear()
        driver.find_element("id", "lon").send_keys("-179.9\n")
        wait_city(driver, "Lambasa")
        t.equal("across the antimeridian", field(driver, "country"), "Fiji (FJ)")

        # Bad input is refused with a message.
        driver.find_element("id", "lat").clear()
        driver.find_element("id", "lat").send_keys("91\n")
        t.check("a latitude of 91 is refused", "−90" in driver.find_element("id", "status").text,
                driver.find_element("id", "status").text)

        # Location refused: the page says so and offers manual entry.
        driver.execute_cdp_cmd("Browser.setPermission", {"origin": kura.url, "permission": {"name": "geolocation"},
                                                         "setting": "denied"})
        open_app(t, kura, "en")
        driver.find_element("id", "locate").click()
        wait(driver, "return document.getElementById('status').textContent.includes('refused')", "the refusal")
        t.check("refused: the status asks for a latitude and longitude",
                "latitude" in driver.find_element("id", "status").text, driver.find_element("id", "status").text)
        t.equal("... and the cursor is in the latitude field", driver.execute_script(
            "return document.activeElement.id"), "lat")
        # As a person does: replace what the fields hold (the last point looked up) rather than type after it.
        for field_id, text in (("lat", "78.2"), ("lon", "15.6\n")):
            element = driver.find_element("id", field_id)
            element.clear()
            element.send_keys(text)
        wait_city(driver, "Longyearbyen")
        t.check("manual entry near the pole", field(driver, "country").endswith("(SJ)"), field(driver, "country"))

        # The name search, accent-insensitive.
        driver.find_element("id", "search-input").send_keys("zürich\n")
        wait(driver, "return document.querySelector('#search-results li span')", "search results")
        t.check("searching zürich finds Zurich",
                driver.find_element("css selector", "#search-results li").text.startswith("Zurich"),
                driver.find_element("css selector", "#search-results li").text)
    finally:
        reset(driver)


@test("places: saved places are the user's, live; screenshots in Japanese and English", start=False)
def places_saved(t):
    kura = set_up(t)
    driver = t.driver
    try:
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": kura.url, "permissions": ["geolocation", "sensors"]})
        driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                               {"latitude": 35.6812, "longitude": 139.7671, "accuracy": 10})
        driver.execute_cdp_cmd("DeviceOrientation.setDeviceOrientationOverride", {"alpha": 315, "beta": 0, "gamma": 0})
        open_app(t, kura, "ja")
        wait_city(driver, "Tokyo")
        wait(driver, "return document.getElementById('direction').dataset.abbreviation === 'NE'", "the direction")
        t.equal("Japanese labels", driver.find_element("id", "address-title").text, "住所")
        t.check("the attribution is shown", "GeoNames" in driver.find_element("css selector", "footer").text,
                driver.find_element("css selector", "footer").text)
        driver.find_element("id", "email").send_keys("saver@example.com")
        driver.find_element("id", "password").send_keys("secret-pw-1")
        driver.find_element("id", "sign-up").click()
        wait(driver, "return !document.getElementById('account').hidden", "the sign-up")
        wait(driver, "return document.querySelector('#saved-list .empty')", "the empty list")
        driver.find_element("id", "save-label").send_keys("東京駅\n")
        wait(driver, "return document.querySelectorAll('#saved-list li[data-id]').length === 1", "the saved place")
        t.check("the saved place is listed with its place",
                "Tokyo" in driver.find_element("css selector", "#saved-list li").text,
                driver.find_element("css selector", "#saved-list li").text)

        # Live: a place saved elsewhere (another device) appears without a reload.
        status, body, _ = kura.api("GET", "/api/admin/users")
        users = [u for u in body["users"] if u.get("email") == "saver@example.com"]
        t.equal("the user exists", len(users), 1)
        uid = users[0]["uid"]
        status, _, _ = kura.api("PUT", f"/api/docs/users/{uid}/savedPlaces/fiji", {"data": {
            "label": "Suva", "lat": -18.14161, "lon": 178.44149, "place": {"name": "Suva", "cc": "FJ"},
            "createdAt": "2026-01-01T00:00:00Z"}})
        t.equal("a place saved by another device", status, 200)
        wait(driver, "return document.querySelectorAll('#saved-list li[data-id]').length === 2",
             "the other device's place")
        t.check("... shows up live", True)

        # Another user cannot read them (the rules).
        status, body, _ = kura.api("POST", "/api/auth/signup", {"email": "other@example.com",
                                                                 "password": "secret-pw-2"})
        token = body.get("idToken")
        status, _, _ = kura.api("GET", f"/api/docs/users/{uid}/savedPlaces/fiji", token=token)
        t.equal("another user may not read them", status, 403)

        screenshot(driver, "places-ja")
        driver.find_element("id", "language").click()
        t.equal("the switch turns the page to English", driver.find_element("id", "address-title").text, "Address")
        screenshot(driver, "places-en")

        # "Use" on a saved place looks it up, and the keyboard focus stays on the button (the list is redrawn).
        use = driver.find_element("css selector", "#saved-list li[data-id='fiji'] button:not(.ghost)")
        driver.execute_script("arguments[0].focus()", use)
        use.send_keys("\n")
        wait(driver, "return document.getElementById('lat').value === '-18.14161' && "
             "document.getElementById('address').dataset.state !== 'loading'", "the saved place looked up")
        t.check("the focus stays on the place's Use button",
                driver.execute_script("return document.activeElement === arguments[0] && arguments[0].isConnected",
                                      use))

        # Removing one is live too.
        driver.find_element("css selector", "#saved-list li[data-id='fiji'] button.ghost").click()
        wait(driver, "return document.querySelectorAll('#saved-list li[data-id]').length === 1", "the removal")
        t.check("removed", True)
    finally:
        reset(driver)
