#!/usr/bin/env python3
"""Loader for bench/pocketbase.sh (standard library only): the same records into PocketBase and into kura.

  pocketbase.py pocketbase --url URL --token TOKEN --docs 100000
      Creates the collection `items` (fields cat, n; index on (cat, n); public list rule) and writes DOCS records
      {"cat": i % 100, "n": i} with POST /api/batch, 1000 per request.
  pocketbase.py kura --url URL --key KEY --docs 100000
      Writes the same documents `items/d<i>` with POST /api/commit (500 per commit), declares the composite index
      (cat ASC, n DESC) and waits until it is READY.
  pocketbase.py check --kura URL --key KEY --pocketbase URL
      Fails unless both answer `cat == 7 order by n desc limit 20` with the same `n` values.
"""

import argparse
import http.client
import json
import sys
import time
import urllib.parse

QUERY = {
    "collection": "items",
    "where": [{"field": "cat", "op": "==", "value": 7}],
    "orderBy": [{"field": "n", "direction": "desc"}],
    "limit": 20,
}
POCKETBASE_QUERY = "/api/collections/items/records?filter=cat%3D7&sort=-n&perPage=20&skipTotal=1"


def fail(message):
    print(f"bench/pocketbase.py: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def request(url, method, path, body=None, headers=None):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    connection.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    if response.status not in (200, 201, 204):
        fail(f"{method} {path}: HTTP {response.status}: {data[:500]!r}")
    return json.loads(data) if data else None


def load_pocketbase(args):
    auth = {"Authorization": args.token}
    request(
        args.url, "POST", "/api/collections",
        {
            "name": "items", "type": "base", "listRule": "",
            "fields": [{"name": "cat", "type": "number"}, {"name": "n", "type": "number"}],
            "indexes": ["CREATE INDEX idx_items_cat_n ON items (cat, n)"],
        },
        auth,
    )
    request(args.url, "PATCH", "/api/settings", {"batch": {"enabled": True, "maxRequests": 1000, "timeout": 120}}, auth)
    began = time.monotonic()
    for start in range(0, args.docs, 1000):
        requests = [
            {"method": "POST", "url": "/api/collections/items/records", "body": {"cat": i % 100, "n": i}}
            for i in range(start, min(start + 1000, args.docs))
        ]
        request(args.url, "POST", "/api/batch", {"requests": requests}, auth)
    print(f"pocketbase: {args.docs} records in {time.monotonic() - began:.1f} s")


def load_kura(args):
    auth = {"Authorization": f"Bearer {args.key}"}
    began = time.monotonic()
    for start in range(0, args.docs, 500):
        writes = [
            {"op": "set", "path": f"items/d{i}", "data": {"cat": i % 100, "n": i}}
            for i in range(start, min(start + 500, args.docs))
        ]
        request(args.url, "POST", "/api/commit", {"writes": writes}, auth)
    loaded = time.monotonic()
    index = {
        "collectionGroup": "items", "queryScope": "COLLECTION",
        "fields": [{"fieldPath": "cat", "order": "ASCENDING"}, {"fieldPath": "n", "order": "DESCENDING"}],
    }
    request(args.url, "POST", "/api/admin/indexes", index, auth)
    while not all(i["state"] == "READY" for i in request(args.url, "GET", "/api/admin/indexes", None, auth)["indexes"]):
        time.sleep(0.2)
    print(
        f"kura: {args.docs} documents in {loaded - began:.1f} s, index (cat ASC, n DESC) built in"
        f" {time.monotonic() - loaded:.1f} s"
    )


def check(args):
    kura = request(args.kura, "POST", "/api/query", QUERY, {"Authorization": f"Bearer {args.key}"})
    pocketbase = request(args.pocketbase, "GET", POCKETBASE_QUERY)
    kura_n = [d["data"]["n"] for d in kura["documents"]]
    pocketbase_n = [int(r["n"]) for r in pocketbase["items"]]
    if kura_n != pocketbase_n or len(kura_n) != 20:
        fail(f"the answers differ: kura {kura_n}, pocketbase {pocketbase_n}")
    print(f"both answer n = {kura_n[0]}, {kura_n[1]}, … {kura_n[-1]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["pocketbase", "kura", "check"])
    parser.add_argument("--url")
    parser.add_argument("--token")
    parser.add_argument("--key")
    parser.add_argument("--kura")
    parser.add_argument("--pocketbase")
    parser.add_argument("--docs", type=int, default=100_000)
    args = parser.parse_args()
    {"pocketbase": load_pocketbase, "kura": load_kura, "check": check}[args.command](args)


if __name__ == "__main__":
    main()
