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
