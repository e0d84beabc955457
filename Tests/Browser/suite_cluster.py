"""Several `kura` nodes on one PostgreSQL (docs/scaling.md): kura.js listeners behind nginx that survive the death
of the node holding their stream, three nodes whose listeners see each other's writes through a `kill -9`, and a
failover from a primary to its promoted standby that keeps every acknowledged write."""

import http.client
import json
import urllib.request

from cluster import Nginx, Node, Postgres, wait_until
from harness import CheckFailed, test
from suite_realtime import wait_ids


def put(node, path, data):
    status, body, _ = node.api("PUT", f"/api/docs/{path}", {"data": data})
    if status != 200:
        raise CheckFailed(f"PUT {path} through {node.url}: {status} {body}")


def start_cluster(t, count, postgres=None, url=None, settings=None):
    postgres = postgres or Postgres()
    t.cleanup.append(postgres.close)
    nodes = [Node(t.binary, url or postgres.url, settings) for _ in range(count)]
    for node in nodes:
        t.servers.append(node)
    return postgres, nodes


@test("cluster: a kura.js listener behind nginx survives the death of either node and resumes on the other",
      start=False)
def listener_behind_nginx(t):
    _, (one, two) = start_cluster(t, 2)
    nginx = Nginx([one, two])
    t.cleanup.append(nginx.close)
    t.kura = nginx  # the page talks to nginx only
    page = t.page()
    uid = page.step("auth", "signUp", "cluster@example.com")
    page.step("realtime", "listenQuery", "all", "items")
    wait_ids(page, "all", [], "the first snapshot")
    expected = []

    def write(node, name):
        put(node, f"users/{uid}/items/{name}", {"title": name, "rank": len(expected) + 1})
        expected.append(name)

    for name in ("d1", "d2"):
        write(one, name)
    write(two, "d3")
    wait_ids(page, "all", expected, "writes through both nodes before any death")
    one.kill()
    write(two, "d4")
    wait_ids(page, "all", expected, "a write after node one was killed")
    one.start()
    two.kill()
    write(one, "d5")
    write(one, "d6")
    wait_ids(page, "all", expected, "writes after node two was killed")
    two.start()
    write(two, "d7")
    wait_ids(page, "all", expected, "a write through the restarted node two")
    changes = page.step("realtime", "allChanges", "all")
    t.equal("every change exactly once, in order", changes,
            [f"added {name} -1>{i}" for i, name in enumerate(expected)])
    statistics = page.step("realtime", "statistics")
    t.check("the stream moved at least once (it was on a node that died)", statistics["connections"] >= 2, statistics)
    t.equal("resumed from its position each time, never re-sent as a snapshot", statistics["snapshotEvents"], 1)
    log = nginx.access_log()
    t.check("the listen requests carried the SDK's affinity key", "/api/listen?affinity=" in log, log[-500:])


@test("cluster: three nodes, a listener on each sees every write made through the others, across a kill -9",
      start=False)
def three_nodes(t):
    _, nodes = start_cluster(t, 3)
    pages = []
    uid = None
    for index, node in enumerate(nodes):
        t.kura = node
        page = t.page()
        if uid is None:
            uid = page.step("auth", "signUp", "three@example.com")
        else:
            page.step("auth", "signInAs", "three@example.com")
        page.step("realtime", "listenQuery", "all", "items")
        wait_ids(page, "all", [], f"the first snapshot on node {index + 1}")
        pages.append(page)
    expected = []
    for round_ in range(2):
        for index, node in enumerate(nodes):
            name = f"r{round_}n{index}"
            put(node, f"users/{uid}/items/{name}", {"rank": len(expected) + 1})
            expected.append(name)
    for index, page in enumerate(pages):
        wait_ids(page, "all", expected, f"node {index + 1}'s listener before the kill")
    nodes[2].kill()
    for name, node in (("k0", nodes[0]), ("k1", nodes[1])):
        put(node, f"users/{uid}/items/{name}", {"rank": len(expected) + 1})
        expected.append(name)
    nodes[2].start()
    put(nodes[2], f"users/{uid}/items/k2", {"rank": len(expected) + 1})
    expected.append("k2")
    for index, page in enumerate(pages):
        wait_ids(page, "all", expected, f"node {index + 1}'s listener after node 3 was killed and restarted")
        t.equal(f"node {index + 1}'s listener saw each write once, in order", page.step("realtime", "allChanges", "all"),
                [f"added {name} -1>{i}" for i, name in enumerate(expected)])
    stats = pages[2].step("realtime", "statistics")
    t.check("node 3's listener reconnected after the kill", stats["connections"] >= 2, stats)
    t.equal("... and resumed rather than starting over", stats["snapshotEvents"], 1)


def sign_in(node, email, password="secret123"):
    request = urllib.request.Request(node.url + "/api/auth/signin", method="POST",
                                     data=json.dumps({"email": email, "password": password}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@test("cluster: revocation, rules and the admin key are the same on every node", start=False)
def shared_state(t):
    _, nodes = start_cluster(t, 3)
    t.equal("every node uses the same admin key", len({n.admin_key for n in nodes}), 1)
    status, body, _ = nodes[0].api("POST", "/api/auth/signup",
                                   {"email": "shared@example.com", "password": "secret123"})
    t.equal("sign-up on node 1", status, 201)
    session = sign_in(nodes[1], "shared@example.com")
    token, uid = session["idToken"], session["user"]["uid"]
    for index, node in enumerate(nodes):
        status, _, _ = node.api("GET", f"/api/auth/me", token=token)
        t.equal(f"node {index + 1} accepts the token signed by node 2", status, 200)
    status, _, _ = nodes[0].api("PATCH", f"/api/admin/users/{uid}", {"disabled": True})
    t.equal("node 1 disables the account", status, 200)
    for index, node in enumerate(nodes):
        status, _, _ = node.api("GET", "/api/auth/me", token=token)
        t.equal(f"node {index + 1} refuses the token at once", status, 401)
    rules = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{db}/documents {\n" \
            "    match /open/{id} { allow read: if true; }\n  }\n}\n"
    request = urllib.request.Request(nodes[2].url + "/api/admin/rules", data=rules.encode(), method="POST",
                                     headers={"Authorization": "Bearer " + nodes[2].admin_key,
                                              "Content-Type": "text/plain"})
    with urllib.request.urlopen(request, timeout=10) as response:
        t.equal("node 3 publishes new rules", response.status, 200)
    put(nodes[0], "open/a", {"x": 1})
    for index, node in enumerate(nodes):
        def anonymous_read():
            try:
                with urllib.request.urlopen(node.url + "/api/docs/open/a", timeout=5) as response:
                    return response.status == 200
            except urllib.error.HTTPError:
                return False
        wait_until(f"node {index + 1} serving the new rules", anonymous_read, timeout=3)
        t.check(f"node {index + 1} switched to the published rules within seconds", True)


def sign_in_from(url, source, email, password, headers=None):
    """A sign-in from loopback address `source` (127.0.0.x: another client, as far as nginx can tell); returns the
    HTTP status."""
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
    try:
        connection.request("POST", "/api/auth/signin", json.dumps({"email": email, "password": password}),
                           {"Content-Type": "application/json", **(headers or {})})
        return connection.getresponse().status
    finally:
        connection.close()


@test("cluster: behind nginx, one client's failed sign-ins do not lock out another client", start=False)
def per_client_limits_behind_nginx(t):
    # The nodes as docs/scaling.md starts them: rate limits on, nginx (on 127.0.0.1) trusted for X-Forwarded-For.
    _, nodes = start_cluster(t, 2, settings={"auth.rateLimits": "true", "http.trustedProxies": "127.0.0.1/32"})
    nginx = Nginx(nodes)
    t.cleanup.append(nginx.close)
    status, _, _ = nodes[0].api("POST", "/api/auth/signup", {"email": "fresh@example.com", "password": "secret123"})
    t.equal("the account exists", status, 201)
    # A guesser at 127.0.0.2 fails until both nodes answer it 429 (a burst of 20 failures per node by default, and
    # one more every 3 s: on a slow machine it takes more).
    statuses = []
    while statuses[-4:] != [429] * 4 and len(statuses) < 400:
        statuses.append(sign_in_from(nginx.url, "127.0.0.2", f"guess{len(statuses)}@example.com", "wrong-pw"))
    t.check("the guesser is limited", statuses[-4:] == [429] * 4, statuses)
    # An X-Forwarded-For of its own is of no help: nginx appends the address it saw, and that is what counts.
    t.equal("a forged X-Forwarded-For does not free the guesser",
            sign_in_from(nginx.url, "127.0.0.2", "x@example.com", "wrong-pw", {"X-Forwarded-For": "203.0.113.9"}),
            429)
    # A fresh client at 127.0.0.3, through the same nginx, signs in.
    t.equal("a fresh client signs in through nginx",
            sign_in_from(nginx.url, "127.0.0.3", "fresh@example.com", "secret123"), 200)


@test("cluster: failover to a promoted standby keeps every acknowledged write", start=False)
def failover(t):
    primary = Postgres()
    t.cleanup.append(primary.close)
    # Synchronous replication: a commit is acknowledged only once the standby has it, so promoting the standby
    # loses no acknowledged write (docs/scaling.md, "PostgreSQL: a primary and a streaming standby").
    standby = Postgres(standby_of=primary)
    t.cleanup.append(standby.close)
    primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
    primary.sql("SELECT pg_reload_conf()")
    wait_until("the standby to be synchronous",
               lambda: primary.sql("SELECT sync_state FROM pg_stat_replication") == "sync")
    url = (f"postgresql://kura@{primary.host_and_port},{standby.host_and_port}/kura_test"
           "?target_session_attrs=read-write&connect_timeout=2")
    _, nodes = start_cluster(t, 2, postgres=primary, url=url)
    acknowledged = []
    for i in range(20):
        put(nodes[i % 2], f"ledger/e{i}", {"n": i})
        acknowledged.append(f"e{i}")
    primary.kill()
    standby.promote()

    def write_after(i):
        def attempt():
            status, _, _ = nodes[i % 2].api("PUT", f"/api/docs/ledger/f{i}", {"data": {"n": i}})
            return status == 200
        return attempt

    for i in range(6):
        wait_until(f"write f{i} through node {i % 2 + 1} after the failover", write_after(i), timeout=60)
        acknowledged.append(f"f{i}")
    for index, node in enumerate(nodes):
        status, body, _ = node.api("POST", "/api/query", {"collection": "ledger", "limit": 1000})
        ids = sorted(d["id"] for d in (body or {}).get("documents", []))
        t.equal(f"node {index + 1} sees every acknowledged write after the failover", ids, sorted(acknowledged))
    t.equal("the promoted standby is the primary now", standby.sql("SELECT pg_is_in_recovery()"), "f")
