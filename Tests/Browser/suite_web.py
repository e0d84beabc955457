"""The web platform around kura.js: CORS (every other test already calls Kura from a second origin) and static
hosting (`--public DIR`), including kura.js served by Kura itself at /sdk/."""

import gzip
import http.client
import os
import shutil
import tempfile
import urllib.parse

from harness import PAGES, test


def raw(url, method, path, headers=None):
    """One request with the path sent exactly as given (no client-side normalisation of `..`)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


@test("CORS: a page on another origin calls the API and listens; preflights are answered")
def cors(t):
    page = t.page()
    page.step("auth", "signUp", "cors@example.com")
    page.step("web", "crossOrigin")
    origin = t.static.url
    status, headers, _ = raw(t.kura.url, "OPTIONS", "/api/docs/users/x/todos/y", {
        "Origin": origin, "Access-Control-Request-Method": "PUT",
        "Access-Control-Request-Headers": "authorization, content-type, last-event-id"})
    t.check("the preflight succeeds", 200 <= status < 300, status)
    t.check("... for the page's origin", headers.get("access-control-allow-origin") in (origin, "*"), headers)
    t.check("... allowing PUT", "PUT" in headers.get("access-control-allow-methods", ""), headers)
    allowed = headers.get("access-control-allow-headers", "").lower()
    t.check("... and the Authorization, Content-Type and Last-Event-ID headers",
            all(h in allowed for h in ("authorization", "content-type", "last-event-id")), allowed)
    t.check("... with a max age", headers.get("access-control-max-age", "").isdigit(), headers)
    status, headers, _ = raw(t.kura.url, "GET", "/api/health", {"Origin": origin})
    exposed = headers.get("access-control-expose-headers", "").lower()
    t.check("answers expose X-Request-Id and Retry-After", "x-request-id" in exposed and "retry-after" in exposed,
            headers)


@test("CORS: a narrowed cors.origins refuses other origins", settings={"cors.origins": "https://app.example.com"})
def cors_refused(t):
    page = t.page()
    page.step("web", "refused")
    status, headers, _ = raw(t.kura.url, "GET", "/api/health", {"Origin": t.static.url})
    t.check("a refused origin gets no CORS headers", "access-control-allow-origin" not in headers, headers)
    status, headers, _ = raw(t.kura.url, "GET", "/api/health", {"Origin": "https://app.example.com"})
    t.equal("the listed origin is allowed", headers.get("access-control-allow-origin"), "https://app.example.com")


@test("hosting: the app and /sdk/kura.js from Kura, ETag and 304, gzip, traversal refused, SPA fallback",
      start=False)
def hosting(t):
    root = tempfile.mkdtemp(prefix="kura-public-")
    t.cleanup.append(lambda: shutil.rmtree(root, ignore_errors=True))
    shutil.copytree(PAGES, root, dirs_exist_ok=True)
    css = ("body { color: #123456; }\n" * 400).encode()
    with open(os.path.join(root, "big.css"), "wb") as f:
        f.write(css)
    with open(os.path.join(root, ".secret"), "w") as f:
        f.write("secret")
    os.makedirs(os.path.join(root, "assets"))
    with open(os.path.join(root, "assets", "app.1234.js"), "w") as f:
        f.write("export const version = 1234;\n")
    os.makedirs(os.path.join(root, "about"))
    with open(os.path.join(root, "about", "index.html"), "w") as f:
        f.write("<!doctype html><title>about</title>")
    outside = tempfile.mkdtemp(prefix="kura-outside-")
    t.cleanup.append(lambda: shutil.rmtree(outside, ignore_errors=True))
    with open(os.path.join(outside, "private.txt"), "w") as f:
        f.write("outside the root")
    os.symlink(outside, os.path.join(root, "escape"))
    kura = t.start_kura(public=root, settings={"hosting.spaFallback": "true"})

    # The suite's own page, served by Kura, importing kura.js from Kura (same origin).
    page = t.page(origin=kura.url)
    page.step("auth", "signUp", "host@example.com")
    page.step("web", "sameOrigin")

    status, headers, body = raw(kura.url, "GET", "/index.html")
    t.equal("a file", status, 200)
    t.check("... as text/html", headers.get("content-type", "").startswith("text/html"), headers)
    t.equal("... with nosniff", headers.get("x-content-type-options"), "nosniff")
    t.check("... an ETag and Last-Modified", "etag" in headers and "last-modified" in headers, headers)
    t.check("HTML is revalidated", "no-cache" in headers.get("cache-control", ""), headers.get("cache-control"))
    status, asset, _ = raw(kura.url, "GET", "/assets/app.1234.js")
    t.check("files under the immutable prefix are cached for a year",
            status == 200 and "max-age=31536000" in asset.get("cache-control", ""), (status, asset))
    t.check("... as JavaScript", "javascript" in asset.get("content-type", ""), asset.get("content-type"))
    status, _, body304 = raw(kura.url, "GET", "/index.html", {"If-None-Match": headers.get("etag", "")})
    t.equal("If-None-Match → 304 without a body", (status, body304), (304, b""))
    status, headers, body = raw(kura.url, "GET", "/", {})
    t.equal("a directory serves its index.html", status, 200)
    status, headers, body = raw(kura.url, "GET", "/big.css", {"Accept-Encoding": "gzip"})
    t.equal("text is gzipped", headers.get("content-encoding"), "gzip")
    t.equal("... and decompresses to the file", gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body, css)
    status, headers, _ = raw(kura.url, "HEAD", "/big.css")
    t.equal("HEAD", status, 200)
    for path in ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/about/../.secret",
                 "/.secret", "/%2esecret", "/escape/private.txt", "/about/%00"]:
        status, headers, body = raw(kura.url, "GET", path, {"Accept": "application/json"})
        t.check(f"refused: {path}", status in (400, 404) and b"outside the root" not in body and b"root:" not in body
                and b"secret" != body, f"{status} {body[:100]!r}")
    status, headers, body = raw(kura.url, "GET", "/no/such/route", {"Accept": "text/html"})
    t.check("SPA fallback: an unknown path serves index.html", status == 200 and b"kura.js browser tests" in body,
            status)
    status, headers, body = raw(kura.url, "GET", "/api/no-such-endpoint", {"Accept": "text/html"})
    t.equal("... but never under /api/", status, 404)
    for name in ("kura.js", "kura.d.ts", "auth.js", "listeners.js"):
        status, headers, _ = raw(kura.url, "GET", f"/sdk/{name}")
        t.equal(f"/sdk/{name} is served", status, 200)
