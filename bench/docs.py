#!/usr/bin/env python3
"""Load generator for bench/docs.sh (standard library only).

  docs.py load  --url URL --key KEY --collection items --docs 1000000 --loaders 4
      Writes DOCS documents {"status", "rank", "title"} with POST /api/commit, 500 `set` writes per commit, from
      LOADERS threads (one keep-alive connection each). Prints the time taken and docs/s; the last line is
      `load_seconds=… load_docs_per_s=…`.
  docs.py query --url URL --key KEY --collection items --requests 2000 --clients 4 [--id-prefix q]
      Sends POST /api/query `status == S orderBy rank desc limit 20`, S cycling through STATUSES, from CLIENTS
      threads. Each request carries `X-Request-Id: <prefix>-<status>-<n>`, so the server's access log can be split
      by status. Checks every answer is 200 and that the first answer per status is right (only that status,
      ranks descending, 20 documents unless the status is rare). Prints client-side latencies (the server's own come from its log).

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
        writes.append(
            f'{{"op":"set","path":"{collection}/d{n:08d}","data":'
            f'{{"status":"{statuses[i]}","rank":{rng.randrange(1_000_000)},"title":"{title}"}}}}'
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


def query_body(collection, status):
    return json.dumps(
        {
            "collection": collection,
            "where": [{"field": "status", "op": "==", "value": status}],
            "orderBy": [{"field": "rank", "direction": "desc"}],
            "limit": 20,
        }
    ).encode()


def check_answer(status_value, body, at_least):
    documents = json.loads(body)["documents"]
    if not at_least <= len(documents) <= 20:
        fail(f"query status == {status_value} limit 20: {len(documents)} documents, expected {at_least} to 20")
    ranks = [d["data"]["rank"] for d in documents]
    if any(d["data"]["status"] != status_value for d in documents):
        fail(f"query status == {status_value} answered other statuses: {[d['data']['status'] for d in documents]}")
    if ranks != sorted(ranks, reverse=True):
        fail(f"query status == {status_value} orderBy rank desc answered ranks out of order: {ranks}")


def query(args):
    values = [s for s, _ in STATUSES]
    bodies = {s: query_body(args.collection, s) for s in values}
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
            status, body = client.post("/api/query", bodies[value], request_id=f"{args.id_prefix}-{value}-{n}")
            elapsed = (time.monotonic() - began) * 1000
            if status != 200:
                fail(f"query status == {value}: HTTP {status}: {body[:500]!r}")
            with lock:
                latencies[value].append(elapsed)
                first = value not in checked
                checked.add(value)
            if first:
                check_answer(value, body, min(20, args.expect_at_least))

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
    parser.add_argument("command", choices=["load", "query"])
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
    args = parser.parse_args()
    load(args) if args.command == "load" else query(args)


if __name__ == "__main__":
    main()
