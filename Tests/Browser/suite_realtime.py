"""Listeners through kura.js: live changes from other clients, resuming across a server restart and an expired
token, and `auth_revoked` signing the user out."""

import time

from harness import CheckFailed, test


def wait_ids(page, name, expected, what, timeout=20):
    """Waits until listener `name` shows the documents `expected` (by ID, in order)."""
    deadline = time.time() + timeout
    while True:
        ids = page.step("realtime", "lastIds", name)
        if ids == expected:
            return
        if time.time() > deadline:
            raise CheckFailed(f"{what}: the listener shows {ids}, expected {expected}")
        time.sleep(0.05)


@test("listeners: document and query snapshots with docChanges, live changes from another tab and the server")
def live(t):
    listener = t.page()
    uid = listener.step("auth", "signUp", "live@example.com")
    writer = t.page()  # the same browser: the session is shared, so this tab writes as the same user
    listener.step("realtime", "listenQuery", "open", "todos", True)
    listener.step("realtime", "listenDoc", "one", "users/{uid}/todos/a")
    listener.step("realtime", "listenLast", "last", "todos")
    listener.step("realtime", "listenDoc", "denied", "users/someone-else/todos/a")
    wait_ids(listener, "open", [], "the first (empty) snapshot")
    writer.step("realtime", "write", "todos", "a", {"title": "eggs", "done": False, "rank": 2})
    wait_ids(listener, "open", ["a"], "a added")
    t.kura.api("PUT", f"/api/docs/users/{uid}/todos/b", {"data": {"title": "milk", "done": False, "rank": 1}})
    wait_ids(listener, "open", ["b", "a"], "b added by another client (the server's admin API)")
    writer.step("realtime", "update", "todos", "a", {"done": True})
    wait_ids(listener, "open", ["b"], "a marked done leaves the query")
    writer.step("realtime", "update", "todos", "b", {"title": "oat milk"})
    writer.step("realtime", "remove", "todos", "a")
    writer.step("realtime", "write", "todos", "c", {"title": "tea", "done": False, "rank": 0})
    wait_ids(listener, "open", ["c", "b"], "c added first")
    snapshots = listener.step("realtime", "snapshots", "open")
    t.equal("the query's docChanges, in order", [c for s in snapshots for c in s["changes"]],
            ["added a -1>0", "added b -1>0", "removed a 1>-1", "modified b 0>0", "added c -1>0"])
    t.equal("the query's titles at the end", snapshots[-1]["titles"], ["tea", "oat milk"])
    t.check("no snapshot came from the cache or had pending writes (no persistence)",
            not any(s["fromCache"] or s["pending"] for s in snapshots), snapshots)
    documents = listener.step("realtime", "snapshots", "one")
    t.equal("the document listener: missing, created, changed, deleted",
            [(d["exists"], (d["data"] or {}).get("done")) for d in documents],
            [(False, None), (True, False), (True, True), (False, None)])
    t.equal("docChanges replayed one after the other give the final view",
            listener.step("realtime", "changesReplay", "open"), ["c", "b"])
    writer.step("realtime", "write", "todos", "z", {"title": "done long ago", "done": True, "rank": 5})
    wait_ids(listener, "last", ["b", "z"], "limitToLast(2): the last two by rank, in ascending order")
    views = [s["ids"] for s in listener.step("realtime", "snapshots", "last")]
    t.check("limitToLast(2) held [c, b] before z pushed c out", ["c", "b"] in views, views)
    t.equal("... and its first views", views[:3], [[], ["a"], ["b", "a"]])
    t.equal("a listener the rules refuse ends with permission-denied", listener.step("realtime", "errors", "denied"),
            ["permission-denied"])
    statistics = listener.step("realtime", "statistics")
    t.equal("all the listeners share one stream", statistics["connections"], 1)
    for name in ("open", "one", "last"):
        listener.step("realtime", "stop", name)


@test("listeners: a listener whose add request fails while the stream stays open is added when it gets through")
def add_fails(t):
    page = t.page()
    uid = page.step("auth", "signUp", "add-fails@example.com")
    page.step("realtime", "listenQuery", "first", "todos")
    wait_ids(page, "first", [], "the first listener's snapshot (the stream is open)")
    page.step("realtime", "countListenAdds")
    # Requests that add listeners fail; the stream that is already open is not touched.
    page.block_urls([t.kura.url + "/api/listen/*"])
    page.step("realtime", "listenQuery", "second", "todos")
    deadline = time.time() + 20
    while page.step("realtime", "listenAdds")["failed"] < 1:
        if time.time() > deadline:
            raise CheckFailed(f"the request adding the second listener never failed: {page.step('realtime', 'listenAdds')}")
        time.sleep(0.05)
    page.block_urls([])
    t.kura.api("PUT", f"/api/docs/users/{uid}/todos/a", {"data": {"title": "eggs", "done": False, "rank": 1}})
    wait_ids(page, "second", ["a"], "the second listener, once its add request got through")
    wait_ids(page, "first", ["a"], "the first listener")
    t.equal("both listeners are on the stream that was open all along",
            page.step("realtime", "statistics")["connections"], 1)


@test("listeners: a listener the server drops with UNAVAILABLE is added again and goes on; other errors end it",
      settings={"realtime.heartbeatSeconds": "1"})
def dropped_target(t):
    page = t.page()
    uid = page.step("auth", "signUp", "dropped@example.com")
    page.step("realtime", "interceptListenStream")
    page.step("realtime", "listenQuery", "todos", "todos")
    wait_ids(page, "todos", [], "the first snapshot")
    t.kura.api("PUT", f"/api/docs/users/{uid}/todos/a", {"data": {"title": "eggs", "done": False, "rank": 1}})
    wait_ids(page, "todos", ["a"], "a added")
    # As the server says when a listener could not be prepared or kept up to date: "add it again".
    page.step("realtime", "injectTargetErrors", "UNAVAILABLE")
    t.kura.api("PUT", f"/api/docs/users/{uid}/todos/b", {"data": {"title": "milk", "done": False, "rank": 2}})
    wait_ids(page, "todos", ["a", "b"], "b added after the drop")
    t.equal("the dropped listener reported no error", page.step("realtime", "errors", "todos"), [])
    t.equal("... and was added again on the same stream", page.step("realtime", "statistics")["connections"], 1)
    changes = page.step("realtime", "allChanges", "todos")
    t.equal("nothing was lost or repeated", changes, ["added a -1>0", "added b -1>1"])
    page.step("realtime", "injectTargetErrors", "PERMISSION_DENIED")
    deadline = time.time() + 20
    while page.step("realtime", "errors", "todos") != ["permission-denied"]:
        if time.time() > deadline:
            raise CheckFailed(f"a refusal did not end the listener: {page.step('realtime', 'errors', 'todos')}")
        time.sleep(0.05)


@test("listeners: the stream resumes after the server restarts mid-stream, nothing lost or repeated",
      settings={"realtime.heartbeatSeconds": "1"})
def restart(t):
    page = t.page()
    uid = page.step("auth", "signUp", "restart@example.com")
    page.step("realtime", "listenQuery", "all", "items")
    wait_ids(page, "all", [], "the first snapshot")
    for i in range(1, 4):
        t.kura.api("PUT", f"/api/docs/users/{uid}/items/d{i}", {"data": {"title": f"d{i}", "rank": i}})
    wait_ids(page, "all", ["d1", "d2", "d3"], "three documents before the restart")
    t.kura.restart()
    # Written as soon as the server is back, before or while the page reconnects.
    for i in range(4, 7):
        t.kura.api("PUT", f"/api/docs/users/{uid}/items/d{i}", {"data": {"title": f"d{i}", "rank": i}})
    t.kura.api("PATCH", f"/api/docs/users/{uid}/items/d1", {"data": {"title": "d1 again"}})
    wait_ids(page, "all", ["d1", "d2", "d3", "d4", "d5", "d6"], "three more after the restart")
    page.wait("realtime", "allChangesInclude", "modified d1 0>0", what="the change to d1")
    changes = page.step("realtime", "allChanges", "all")
    t.equal("every change exactly once, in order", changes,
            [f"added d{i} -1>{i - 1}" for i in range(1, 7)] + ["modified d1 0>0"])
    statistics = page.step("realtime", "statistics")
    t.check("the stream was reconnected", statistics["connections"] >= 2, statistics)
    t.equal("resumed from its position, not re-sent as a snapshot", statistics["snapshotEvents"], 1)


@test("listeners: an expired token is refreshed and the stream resumed; a disabled account is signed out",
      settings={"auth.idTokenLifetimeSeconds": "6", "realtime.authCheckSeconds": "1"})
def token_expiry(t):
    page = t.page()
    uid = page.step("auth", "signUp", "expiry@example.com")
    page.step("realtime", "listenQuery", "all", "items")
    wait_ids(page, "all", [], "the first snapshot")
    t.kura.api("PUT", f"/api/docs/users/{uid}/items/a", {"data": {"rank": 1}})
    wait_ids(page, "all", ["a"], "a")
    page.wait("realtime", "connectionsAtLeast", 2, timeout=15, what="the stream reopened after the token expired")
    t.kura.api("PUT", f"/api/docs/users/{uid}/items/b", {"data": {"rank": 2}})
    wait_ids(page, "all", ["a", "b"], "b after the token expired")
    statistics = page.step("realtime", "statistics")
    t.equal("resumed, not a new snapshot", statistics["snapshotEvents"], 1)
    t.equal("nothing repeated", page.step("realtime", "allChanges", "all"), ["added a -1>0", "added b -1>1"])
    t.equal("the user is still signed in", page.step("realtime", "uid"), uid)
    status, _, _ = t.kura.api("PATCH", f"/api/admin/users/{uid}", {"disabled": True})
    t.equal("the administrator disables the account", status, 200)
    page.wait("realtime", "signedOutWithError", "all", timeout=15, what="auth_revoked signing the user out")
    t.equal("the listener ended with unauthenticated", page.step("realtime", "errors", "all"), ["unauthenticated"])


@test("listeners: a reset (too many changes to replay) is followed by a snapshot that replaces the view",
      settings={"realtime.maxReplayChanges": "3"})
def reset(t):
    page = t.page()
    uid = page.step("auth", "signUp", "reset@example.com")
    page.step("realtime", "listenQuery", "all", "items")
    for i in (1, 2):
        t.kura.api("PUT", f"/api/docs/users/{uid}/items/d{i}", {"data": {"rank": i}})
    wait_ids(page, "all", ["d1", "d2"], "two documents")
    # Cut the page off from Kura and drop its stream; five changes happen meanwhile, more than may be replayed.
    page.block_urls([t.kura.url + "/*"])
    page.step("realtime", "dropConnection")
    t.kura.api("DELETE", f"/api/docs/users/{uid}/items/d1")
    for i in (3, 4, 5, 6):
        t.kura.api("PUT", f"/api/docs/users/{uid}/items/d{i}", {"data": {"rank": i}})
    page.block_urls([])
    wait_ids(page, "all", ["d2", "d3", "d4", "d5", "d6"], "the view after the reset")
    statistics = page.step("realtime", "statistics")
    t.equal("a reset was received", statistics["resets"], 1)
    t.equal("followed by a second snapshot", statistics["snapshotEvents"], 2)
    t.equal("docChanges turn the old view into the new one", page.step("realtime", "allChanges", "all"),
            ["added d1 -1>0", "added d2 -1>1", "removed d1 0>-1", "added d3 -1>1", "added d4 -1>2",
             "added d5 -1>3", "added d6 -1>4"])
