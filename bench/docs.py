#!/usr/bin/env python3
"""Load generator for bench/docs.sh (standard library only).

  docs.py load  --url URL --key KEY --collection items --docs 1000000 --loaders 4
      Writes DOCS documents {"status", "cat", "tier", "rank", "title"} with POST /api/commit (`cat` uniform over
      0…99, `tier` "gold" on every 1000th document and "basic" elsewhere), 500 `set` writes per commit, from
      LOADERS threads (one keep-alive connection each). Prints the time taken and docs/s; the last line is
      `load_seconds=… load_docs_per_s=…`.
  docs.py query --url URL --key KEY --collection items --requests 2000 --clients 4 [--id-prefix q]
                [--shape status|uniform|rare|in]
      Sends POST /api/query `status == S orderBy rank desc limit 20`, S cycling through STATUSES (shape `status`;
      `uniform`: `cat == C`, C cycling through 0…99; `rare`: `tier == "gold"`, 0.1 % of the documents; `in`:
      `cat in [C, C+37, C+71]`, three of the 100 values, from the same index as `uniform`), from CLIENTS
      threads. Each request carries `X-Request-Id: <prefix>-<status>-<n>`, so the server's access log can be split
      by status. Checks every answer is 200 and that the first answer per status is right (only that status,
      ranks descending, 20 documents unless the status is rare). Prints client-side latencies (the server's own come from its log).

  docs.py indexes --url URL --key KEY --collection items [--write-interval-ms 20] [--baseline-seconds 60]
      Writes one document at a time (PUT, durable), one every WRITE_INTERVAL_MS, for BASELINE_SECONDS (the
      baseline, no build going on); then declares the composite indexes the three query shapes need (POST
      /api/admin/indexes) and, while they build, writes the same way to show that writes stay available; polls GET
      /api/admin/indexes until every index is READY. Prints `index_build_seconds=… build_writes=…
      build_write_p50_ms=… build_write_p99_ms=… build_write_max_ms=… baseline_writes=… baseline_write_p50_ms=…
      baseline_write_p99_ms=…`; the last line is `build_write_p99_ratio=…` (the p99 during the build over the
      baseline's).
  docs.py explain --url URL --key KEY --collection items
      Prints POST /api/query?explain=true for one query of each shape: the index used and the rows it examined.

Exits 1 on the first wrong answer, after printing it.
"""

import argparse
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse

# The `status` values and their share of the documents: a few common values and a rare tail.
STATUSES = [("open", 50), ("closed", 35), ("pending", 10), ("blocked", 4), ("archived", 1)]
BATCH = 500  # the most writes one commit may hold
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def fail(message):
    print(f"bench/docs.py: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


class Client:
    """One keep-alive connection to kura."""

    def __init__(self, url, key):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname, parts.port
        self.headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=120)

    def post(self, path, body, request_id=None):
        headers = dict(self.headers, **({"X-Request-Id": request_id} if request_id else {}))
        try:
            self.connection.request("POST", path, body=body, headers=headers)
            response = self.connection.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException) as error:
            fail(f"POST {path} ({request_id or 'no id'}): {type(error).__name__}: {error}")


def batch_body(collection, start, count, seed):
    """The commit body for documents start..start+count-1, as bytes (formatted by hand: faster than json.dumps)."""
    rng = random.Random(seed)
    values = [s for s, _ in STATUSES]
    weights = [w for _, w in STATUSES]
    statuses = rng.choices(values, weights, k=count)
    writes = []
    for i in range(count):
        n = start + i
        title = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {n}"
        tier = "gold" if n % 1000 == 0 else "basic"
        writes.append(
            f'{{"op":"set","path":"{collection}/d{n:08d}","data":'
            f'{{"status":"{statuses[i]}","cat":{rng.randrange(100)},"tier":"{tier}",'
            f'"rank":{rng.randrange(1_000_000)},"title":"{title}"}}}}'
        )
    return ('{"writes":[' + ",".join(writes) + "]}").encode()


def load(args):
    batches = (args.docs + BATCH - 1) // BATCH
    next_batch = [0]
    lock = threading.Lock()

    def loader():
        client = Client(args.url, args.key)
        while True:
            with lock:
                b = next_batch[0]
                next_batch[0] += 1
            if b >= batches:
                return
            start = b * BATCH
            count = min(BATCH, args.docs - start)
            status, body = client.post("/api/commit", batch_body(args.collection, start, count, seed=b))
            if status != 200:
                fail(f"commit of documents {start}..{start + count - 1}: HTTP {status}: {body[:500]!r}")
            results = json.loads(body).get("writeResults", [])
            if len(results) != count:
                fail(f"commit of {count} writes answered {len(results)} writeResults")

    began = time.monotonic()
    threads = [threading.Thread(target=loader, daemon=True) for _ in range(args.loaders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - began
    print(
        f"loaded {args.docs} documents into '{args.collection}' in {seconds:.1f} s: {args.docs / seconds:.0f} docs/s"
        f" ({batches} commits of up to {BATCH} writes from {args.loaders} loaders)"
    )
    print(f"load_seconds={seconds:.1f} load_docs_per_s={args.docs / seconds:.0f}")


# Per shape: the field filtered on, its values (the requests cycle through them) and how each is named in
# request IDs.
# `in`: `cat in [C, C+37, C+71]` (mod 100, C cycling through 0…99), served by the `(cat, rank)` index one range
# per value, merged.
SHAPES = {
    "status": ("status", [s for s, _ in STATUSES], str),
    "uniform": ("cat", list(range(100)), lambda v: f"c{v}"),
    "rare": ("tier", ["gold"], str),
    "in": ("cat", [(c, (c + 37) % 100, (c + 71) % 100) for c in range(100)], lambda v: f"c{v[0]}"),
}


def query_body(collection, field, value):
    op = "in" if isinstance(value, tuple) else "=="
    return json.dumps(
        {
            "collection": collection,
            "where": [{"field": field, "op": op, "value": value}],
            "orderBy": [{"field": "rank", "direction": "desc"}],
            "limit": 20,
        }
    ).encode()


def check_answer(field, value, body, at_least):
    documents = json.loads(body)["documents"]
    if not at_least <= len(documents) <= 20:
        fail(f"query {field} == {value} limit 20: {len(documents)} documents, expected {at_least} to 20")
    ranks = [d["data"]["rank"] for d in documents]
    wanted = value if isinstance(value, tuple) else (value,)
    if any(d["data"][field] not in wanted for d in documents):
        fail(f"query {field} == {value} answered other values: {[d['data'][field] for d in documents]}")
    if ranks != sorted(ranks, reverse=True):
        fail(f"query {field} == {value} orderBy rank desc answered ranks out of order: {ranks}")


def indexes(args):
    definitions = {
        "indexes": [
            {
                "collectionGroup": args.collection,
                "queryScope": "COLLECTION",
                "fields": [{"fieldPath": field, "order": "ASCENDING"}, {"fieldPath": "rank", "order": "DESCENDING"}],
            }
            for field in dict.fromkeys(field for field, _, _ in SHAPES.values())
        ]
    }

    def writer(prefix, done, write_ms):
        # Durable single-document writes (creates), one every --write-interval-ms: each must be answered.
        writes = Client(args.url, args.key)
        n = 0
        while not done.is_set():
            doc = json.dumps({"data": {"status": "open", "cat": n % 100, "tier": "basic", "rank": n, "title": "w"}})
            started = time.monotonic()
            path = f"/api/docs/{args.collection}/{prefix}{n:08d}"
            writes.connection.request("PUT", path, body=doc, headers=writes.headers)
            response = writes.connection.getresponse()
            answer = response.read()
            if response.status != 200:
                fail(f"PUT {path}: HTTP {response.status}: {answer[:500]!r}")
            write_ms.append((time.monotonic() - started) * 1000)
            n += 1
            time.sleep(args.write_interval_ms / 1000)

    # The baseline: the same writes for --baseline-seconds with no index build going on.
    baseline_ms = []
    baseline_done = threading.Event()
    thread = threading.Thread(target=writer, args=("b", baseline_done, baseline_ms), daemon=True)
    thread.start()
    time.sleep(args.baseline_seconds)
    baseline_done.set()
    thread.join()
    baseline_ms.sort()
    print(
        f"without an index build: {len(baseline_ms)} durable writes in {args.baseline_seconds:.0f} s, p50"
        f" {percentile(baseline_ms, 50):.2f} ms, p99 {percentile(baseline_ms, 99):.2f} ms, max {baseline_ms[-1]:.2f} ms",
        flush=True,
    )

    client = Client(args.url, args.key)
    began = time.monotonic()
    status, body = client.post("/api/admin/indexes", json.dumps(definitions).encode())
    if status != 200:
        fail(f"POST /api/admin/indexes: HTTP {status}: {body[:500]!r}")
    done = threading.Event()
    write_ms = []
    thread = threading.Thread(target=writer, args=("w", done, write_ms), daemon=True)
    thread.start()
    poller = Client(args.url, args.key)
    last = 0.0
    while True:
        poller.connection.request("GET", "/api/admin/indexes", headers=poller.headers)
        response = poller.connection.getresponse()
        listing = json.loads(response.read())["indexes"]
        states = " ".join(f"{i['fields'][0]['fieldPath']}:{i['state']}:{i['documentsScanned']}" for i in listing)
        if any(i["state"] == "ERROR" for i in listing):
            fail(f"an index build failed: {listing}")
        if all(i["state"] == "READY" for i in listing):
            break
        if time.monotonic() - last >= 10:
            print(f"  {time.monotonic() - began:.0f} s: {states}", flush=True)
            last = time.monotonic()
        time.sleep(0.5)
    seconds = time.monotonic() - began
    done.set()
    thread.join()
    write_ms.sort()
    print(
        f"3 composite indexes built in {seconds:.1f} s; meanwhile {len(write_ms)} durable writes, p50"
        f" {percentile(write_ms, 50):.2f} ms, p99 {percentile(write_ms, 99):.2f} ms, max {write_ms[-1]:.2f} ms"
    )
    print(
        f"index_build_seconds={seconds:.1f} build_writes={len(write_ms)}"
        f" build_write_p50_ms={percentile(write_ms, 50):.2f} build_write_p99_ms={percentile(write_ms, 99):.2f}"
        f" build_write_max_ms={write_ms[-1]:.2f} baseline_writes={len(baseline_ms)}"
        f" baseline_write_p50_ms={percentile(baseline_ms, 50):.2f}"
        f" baseline_write_p99_ms={percentile(baseline_ms, 99):.2f}"
    )
    print(f"build_write_p99_ratio={percentile(write_ms, 99) / percentile(baseline_ms, 99):.2f}")


def explain(args):
    client = Client(args.url, args.key)
    for shape, (field, values, _) in SHAPES.items():
        status, body = client.post("/api/query?explain=true", query_body(args.collection, field, values[0]))
        if status != 200:
            fail(f"explain {shape}: HTTP {status}: {body[:500]!r}")
        e = json.loads(body)["explain"]
        op = "in" if isinstance(values[0], tuple) else "=="
        print(f"  {shape} ({field} {op} {values[0]!r}): {e['index']}; {e['rowsExamined']} rows examined,"
              f" {e['rowsReturned']} returned; plan: {' / '.join(e['plan'])}")


def query(args):
    field, values, name = SHAPES[args.shape]
    bodies = {v: query_body(args.collection, field, v) for v in values}
    next_request = [0]
    lock = threading.Lock()
    latencies = {s: [] for s in values}
    checked = set()

    def client_thread():
        client = Client(args.url, args.key)
        while True:
            with lock:
                n = next_request[0]
                next_request[0] += 1
            if n >= args.requests:
                return
            value = values[n % len(values)]
            began = time.monotonic()
            request_id = f"{args.id_prefix}-{name(value)}-{n}"
            status, body = client.post("/api/query", bodies[value], request_id=request_id)
            elapsed = (time.monotonic() - began) * 1000
            if status != 200:
                fail(f"query {field} == {value}: HTTP {status}: {body[:500]!r}")
            with lock:
                latencies[value].append(elapsed)
                first = value not in checked
                checked.add(value)
            if first:
                check_answer(field, value, body, min(20, args.expect_at_least))

    began = time.monotonic()
    threads = [threading.Thread(target=client_thread, daemon=True) for _ in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - began
    every = sorted(v for values_ms in latencies.values() for v in values_ms)
    print(
        f"{args.requests} queries from {args.clients} clients in {seconds:.1f} s ({args.requests / seconds:.0f}/s);"
        f" client-side p50 {percentile(every, 50):.2f} ms, p99 {percentile(every, 99):.2f} ms"
    )


def percentile(sorted_values, p):
    """Nearest rank, as bench/docs.sh computes the server-side ones."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-len(sorted_values) * p // 100))
    return sorted_values[int(rank) - 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["load", "query", "indexes", "explain"])
    parser.add_argument("--url", required=True, help="kura's base URL, http://127.0.0.1:PORT")
    parser.add_argument("--key", required=True, help="the admin key")
    parser.add_argument("--collection", default="items")
    parser.add_argument("--docs", type=int, default=1_000_000, help="load: documents to write")
    parser.add_argument("--loaders", type=int, default=4, help="load: parallel connections")
    parser.add_argument("--requests", type=int, default=2000, help="query: requests to send")
    parser.add_argument("--clients", type=int, default=4, help="query: parallel connections")
    parser.add_argument("--id-prefix", default="q", help="query: X-Request-Id prefix")
    parser.add_argument(
        "--expect-at-least", type=int, default=20, help="query: documents each status has at least (for the check)"
    )
    parser.add_argument("--shape", choices=list(SHAPES), default="status", help="query: which query")
    parser.add_argument("--write-interval-ms", type=float, default=20, help="indexes: pause between writes")
    parser.add_argument(
        "--baseline-seconds", type=float, default=60, help="indexes: writes measured before declaring the indexes"
    )
    args = parser.parse_args()
    {"load": load, "query": query, "indexes": indexes, "explain": explain}[args.command](args)


if __name__ == "__main__":
    main()
