"""Offline persistence (`persistence: 'indexeddb'`) with the network cut through the DevTools protocol: cached
reads, queued writes shown at once and replayed in order after reconnecting, refusals surfaced as error events."""

import time

from harness import CheckFailed, test
from suite_realtime import wait_ids


@test("offline: cached reads, queued writes applied locally and replayed in order, refusals reported",
      settings={"realtime.heartbeatSeconds": "1"})
def offline(t):
    page = t.page(persistence="indexeddb")
    uid = page.step("auth", "signUp", "off@example.com")
    page.step("offline", "prepare")
    page.step("realtime", "listenQuery", "all", "todos", False, True)
    wait_ids(page, "all", ["a", "b", "gone"], "the listener's first snapshot")
    page.set_offline(True)
    page.step("offline", "readOffline")
    # A listener started offline shows what the cache has. (Chromium's offline emulation fails new requests but
    # leaves the open stream alone, so the first listener may still hear from the server.)
    page.step("realtime", "listenQuery", "late", "todos")
    wait_ids(page, "late", ["a", "b", "gone"], "the cache's answer to a listener started offline")
    t.equal("... marked fromCache", page.step("realtime", "snapshots", "late")[0]["fromCache"], True)
    # Meanwhile, another client changes the server: one document deleted, one added.
    t.kura.api("DELETE", f"/api/docs/users/{uid}/todos/gone")
    t.kura.api("PUT", f"/api/docs/users/{uid}/todos/d", {"data": {"title": "from elsewhere", "rank": 3}})
    page.step("offline", "writeOffline")
    snapshots = page.step("realtime", "snapshots", "all")
    t.equal("the listener shows the queued writes at once, marked pending",
            (snapshots[-1]["ids"][:3], snapshots[-1]["titles"][:2], snapshots[-1]["pending"]),
            (["c", "a", "b"], ["tea", "eggs (6)"], True))
    status, _, _ = t.kura.api("GET", f"/api/docs/users/{uid}/todos/c")
    t.equal("nothing reached the server while offline", status, 404)
    page.set_offline(False)
    page.step("offline", "afterReconnect")
    status, body, _ = t.kura.api("GET", f"/api/docs/users/{uid}/todos/c")
    t.equal("the server has the queued document", (status, body and body["data"]), (200, {"title": "tea", "rank": 0}))
    status, _, _ = t.kura.api("GET", "/api/docs/users/someone-else/todos/x")
    t.equal("the refused write did not happen", status, 404)
    wait_ids(page, "all", ["c", "a", "b", "d"], "the listener catching up after reconnecting")
    wait_ids(page, "late", ["c", "a", "b", "d"], "the late listener catching up after reconnecting")
    snapshots = page.step("realtime", "snapshots", "all")
    t.equal("the last snapshot has no pending writes (includeMetadataChanges)", snapshots[-1]["pending"], False)
    deadline = time.time() + 15
    while True:
        status, body, _ = t.kura.api("GET", f"/api/docs/users/{uid}/_kura_receipts")
        if status == 200 and not body["documents"]:
            break
        if time.time() > deadline:
            raise CheckFailed(f"write receipts were not cleaned up: {body}")
        time.sleep(0.2)
    t.check("the write receipts were deleted after acknowledgement", True)


@test("offline: the queue and the cache survive a reload; the queue drains once the server is reachable")
def reload(t):
    page = t.page(persistence="indexeddb")
    uid = page.step("auth", "signUp", "reload@example.com")
    page.step("offline", "prepare")
    # Only the Kura server is cut off, so that the page itself can still be loaded.
    page.block_urls([t.kura.url + "/*"])
    page.step("offline", "queueForReload")
    page.load()
    page.step("offline", "afterReload")
    page.block_urls([])
    page.wait("offline", "drained", timeout=30, what="the queue draining after the reload")
    status, body, _ = t.kura.api("GET", f"/api/docs/users/{uid}/todos/r")
    t.equal("the write queued before the reload reached the server",
            (status, body and body["data"]["title"]), (200, "written before the reload"))


@test("offline: an ID token that expires while offline does not stop cached reads and queued writes",
      settings={"auth.idTokenLifetimeSeconds": "3"})
def expired_offline(t):
    page = t.page(persistence="indexeddb")
    uid = page.step("auth", "signUp", "expired@example.com")
    page.step("offline", "prepare")
    page.set_offline(True)
    page.step("offline", "afterExpiry")
    page.set_offline(False)
    page.wait("offline", "drained", timeout=30, what="the queue draining with a refreshed token")
    status, body, _ = t.kura.api("GET", f"/api/docs/users/{uid}/todos/late")
    t.equal("the write queued with an expired token reached the server", (status, body and body["data"]),
            (200, {"title": "queued after expiry"}))
    plain = t.page()  # no persistence
    plain.step("auth", "signUp", "plain@example.com")
    plain.set_offline(True)
    plain.step("offline", "expiredWithoutPersistence")
    plain.set_offline(False)


@test("offline: in query snapshots only the documents with a pending write have metadata.hasPendingWrites")
def pending_per_document(t):
    page = t.page(persistence="indexeddb")
    page.step("auth", "signUp", "pending@example.com")
    page.step("offline", "prepare")
    page.step("offline", "listenPending", "all")
    page.wait("offline", "lastPending", "all", what="the listener's first snapshot")
    page.block_urls([t.kura.url + "/*"])
    page.step("offline", "pendingPerDocument", "all")
    page.block_urls([])
    page.wait("offline", "drained", timeout=30, what="the queue draining")
    deadline = time.time() + 20
    while True:
        last = page.step("offline", "lastPending", "all")
        if not last["pending"] and not any(last["docs"].values()):
            break
        if time.time() > deadline:
            raise CheckFailed(f"the listener still shows pending writes: {last}")
        time.sleep(0.1)
    t.equal("after the write is acknowledged no document is pending", last["docs"], {"a": False, "b": False,
                                                                                   "gone": False})


@test("offline: a running listener reports fromCache while the server is away, and not once in sync again",
      settings={"realtime.heartbeatSeconds": "1"})
def from_cache_when_server_goes(t):
    for persistence in ("indexeddb", "memory"):
        page = t.page(persistence=persistence) if persistence == "indexeddb" else t.page()
        page.step("auth", "signUp", f"cache-{persistence}@example.com")
        page.step("realtime", "write", "todos", "a", {"title": "eggs", "done": False, "rank": 1})
        page.step("realtime", "listenQuery", "all", "todos", False, True)
        wait_snapshot(page, "all", lambda s: s["ids"] == ["a"] and not s["fromCache"], "the first server snapshot")
        t.kura.stop()
        last = wait_snapshot(page, "all", lambda s: s["fromCache"], f"{persistence}: fromCache after the server went")
        t.equal(f"{persistence}: a metadata-only snapshot (same documents, no changes)",
                (last["ids"], last["changes"]), (["a"], []))
        t.kura.start()
        last = wait_snapshot(page, "all", lambda s: not s["fromCache"], f"{persistence}: in sync again")
        t.equal(f"{persistence}: in sync again, the same documents", last["ids"], ["a"])
        t.kura.api("PUT", f"/api/docs/users/{page.step('auth', 'currentUid')}/todos/b",
                   {"data": {"title": "milk", "done": False, "rank": 2}})
        wait_snapshot(page, "all", lambda s: s["ids"] == ["a", "b"] and not s["fromCache"], "live again")
        page.step("realtime", "stop", "all")
        page.step("auth", "signOutQuietly")


def wait_snapshot(page, name, predicate, what, timeout=30):
    """Waits until the last snapshot of listener `name` satisfies `predicate`; returns it."""
    deadline = time.time() + timeout
    while True:
        snapshots = page.step("realtime", "snapshots", name)
        if snapshots and predicate(snapshots[-1]):
            return snapshots[-1]
        if time.time() > deadline:
            raise CheckFailed(f"timed out waiting for {what}: {snapshots[-3:]}")
        time.sleep(0.05)


def wait_title(page, name, title, pending, what, timeout=30):
    """Waits until document listener `name` shows `title` with `pending` (hasPendingWrites)."""
    deadline = time.time() + timeout
    while True:
        snapshots = page.step("realtime", "snapshots", name)
        last = snapshots[-1] if snapshots else None
        if last and (last["data"] or {}).get("title") == title and last["pending"] == pending:
            return
        if time.time() > deadline:
            raise CheckFailed(f"timed out waiting for {what}: {last}")
        time.sleep(0.1)


def server_title(t, uid):
    status, body, _ = t.kura.api("GET", f"/api/docs/users/{uid}/todos/n")
    return body["data"]["title"] if status == 200 else status


@test("offline: the tabs share one queue; a closed tab's write is shown and sent by another, never after a newer one",
      settings={"realtime.heartbeatSeconds": "1"})
def shared_queue(t):
    survivor = t.page(persistence="indexeddb")
    uid = survivor.step("auth", "signUp", "tabs@example.com")
    survivor.step("realtime", "write", "todos", "n", {"title": "original", "rank": 1})
    closing = t.page(persistence="indexeddb")  # the same session (localStorage), the same IndexedDB
    for page in (survivor, closing):
        page.step("realtime", "listenDoc", "n", "users/{uid}/todos/n")
        wait_title(page, "n", "original", False, "the first snapshot")
    t.kura.stop()
    closing.step("realtime", "update", "todos", "n", {"title": "renamed in the closed tab"})
    wait_title(closing, "n", "renamed in the closed tab", True, "the write in its own tab")
    wait_title(survivor, "n", "renamed in the closed tab", True, "the other tab's queued write, shown here")
    t.check("the other tab shows the queued write, pending", True)
    t.driver.switch_to.window(closing.handle)
    t.driver.close()
    t.pages.remove(closing)
    t.driver.switch_to.window(survivor.handle)
    t.kura.start()
    deadline = time.time() + 30
    while server_title(t, uid) != "renamed in the closed tab":
        if time.time() > deadline:
            raise CheckFailed(f"the closed tab's write did not reach the server: {server_title(t, uid)}")
        time.sleep(0.1)
    t.check("the open tab sent the closed tab's write", True)
    survivor.step("realtime", "update", "todos", "n", {"title": "renamed in the open tab"})
    survivor.wait("offline", "drained", timeout=30, what="the open tab's queue draining")
    reopened = t.page(persistence="indexeddb")  # the app opened again
    reopened.wait("offline", "drained", timeout=30, what="the reopened tab's queue draining")
    t.equal("the server keeps the newer name", server_title(t, uid), "renamed in the open tab")
    wait_title(survivor, "n", "renamed in the open tab", False, "the open tab in sync")
