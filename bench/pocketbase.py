#!/usr/bin/env python3
"""Set-up and checks for bench/pocketbase.sh (standard library only): the same data into PocketBase and into kura.

  pocketbase.py pocketbase --url URL --token SUPERUSER_TOKEN --docs 100000 --accounts 8 --password P
      Rate limits off, batch on; collections `items` (cat, n; index on (cat, n); public list rule; DOCS records
      {"cat": i % 100, "n": i} through POST /api/batch, 1000 per request), `profiles` (the 1 KB record, viewRule
      `owner = @request.auth.id`), `creates` (createRule `@request.auth.id != "" && @request.body.owner =
      @request.auth.id`, viewRule `owner = @request.auth.id`) and `feed` (ten records d00000000000000…9, list, view
      and update rule `owner = @request.auth.id`); ACCOUNTS users bench-<i>@example.com. Prints shell assignments:
      pocketbase_uid, pocketbase_token (user 1), pocketbase_token2 (user 2).
  pocketbase.py kura --url URL --key ADMIN_KEY --docs 100000 --accounts 8 --password P
      The same in kura (its rules come from bench/pocketbase.sh): `items/d<i>` through POST /api/commit (500 per
      commit) and the composite index (cat ASC, n DESC), waited for until READY; `profiles/p00000000000001` sized
      so that its GET body is 1,024 bytes; `feed/d…`; ACCOUNTS users signed up. Prints kura_uid, kura_token,
      kura_token2, and profile_data (the profile's fields but `owner`, as JSON, for the PocketBase side).
  pocketbase.py profile --url URL --token SUPERUSER_TOKEN --uid UID --data JSON
      The same profile record in PocketBase, owned by UID.
  pocketbase.py check --kura URL --key KEY --kura-uid … --kura-token … --kura-token2 … --pocketbase URL
                      --pocketbase-uid … --pocketbase-token … --pocketbase-token2 … --password P
      Fails unless both servers answer each row alike: health 200; the owner's GET of the profile gives the same
      fields and another user is refused; a create with the owner's id is stored and one with another owner refused;
      `cat == 7 order by n desc limit 20` gives the same `n` values; the password signs in and a wrong one is refused.
"""

import argparse
import http.client
import json
import shlex
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
PROFILE_ID = "p00000000000001"
FEED_IDS = [f"d{i:014d}" for i in range(10)]
GET_BYTES = 1024  # kura's GET body of the profile
OWNER_RULE = "owner = @request.auth.id"
# The records' own fields in PocketBase's answers, next to the data.
POCKETBASE_META = {"id", "collectionId", "collectionName", "created", "updated"}


def fail(message):
    print(f"bench/pocketbase.py: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def call(url, method, path, body=None, headers=None):
    """(status, parsed JSON or None, raw bytes)"""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    connection.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    try:
        parsed = json.loads(data) if data else None
    except ValueError:
        parsed = None
    return response.status, parsed, data


def request(url, method, path, body=None, headers=None):
    status, parsed, data = call(url, method, path, body, headers)
    if status not in (200, 201, 204):
        fail(f"{method} {path}: HTTP {status}: {data[:500]!r}")
    return parsed


def text(name):
    return {"name": name, "type": "text", "max": 100000}


def load_pocketbase(args):
    auth = {"Authorization": args.token}
    request(
        args.url, "PATCH", "/api/settings",
        {"batch": {"enabled": True, "maxRequests": 1000, "timeout": 120}, "rateLimits": {"enabled": False}}, auth,
    )
    collections = [
        {
            "name": "items", "type": "base", "listRule": "",
            "fields": [{"name": "cat", "type": "number"}, {"name": "n", "type": "number"}],
            "indexes": ["CREATE INDEX idx_items_cat_n ON items (cat, n)"],
        },
        {
            "name": "profiles", "type": "base", "viewRule": OWNER_RULE,
            "fields": [
                text("owner"), text("name"), text("email"), {"name": "age", "type": "number"},
                {"name": "active", "type": "bool"}, text("plan"), {"name": "tags", "type": "json"},
                {"name": "address", "type": "json"}, {"name": "scores", "type": "json"}, text("bio"),
            ],
        },
        {
            "name": "creates", "type": "base", "viewRule": OWNER_RULE,
            "createRule": '@request.auth.id != "" && @request.body.owner = @request.auth.id',
            "fields": [
                text("owner"), text("title"), text("status"), {"name": "rank", "type": "number"},
                {"name": "tags", "type": "json"},
            ],
        },
        {
            "name": "feed", "type": "base", "listRule": OWNER_RULE, "viewRule": OWNER_RULE, "updateRule": OWNER_RULE,
            "fields": [text("owner"), {"name": "seq", "type": "number"}],
        },
    ]
    for collection in collections:
        request(args.url, "POST", "/api/collections", collection, auth)
    for i in range(1, args.accounts + 1):
        request(
            args.url, "POST", "/api/collections/users/records",
            {"email": f"bench-{i}@example.com", "password": args.password, "passwordConfirm": args.password}, auth,
        )
    tokens, uids = [], []
    for i in (1, 2):
        signed_in = request(
            args.url, "POST", "/api/collections/users/auth-with-password",
            {"identity": f"bench-{i}@example.com", "password": args.password},
        )
        tokens.append(signed_in["token"])
        uids.append(signed_in["record"]["id"])
    for record_id in FEED_IDS:
        request(args.url, "POST", "/api/collections/feed/records", {"id": record_id, "owner": uids[0], "seq": -1}, auth)
    began = time.monotonic()
    for start in range(0, args.docs, 1000):
        requests = [
            {"method": "POST", "url": "/api/collections/items/records", "body": {"cat": i % 100, "n": i}}
            for i in range(start, min(start + 1000, args.docs))
        ]
        request(args.url, "POST", "/api/batch", {"requests": requests}, auth)
    print(f"# pocketbase: {args.docs} records in {time.monotonic() - began:.1f} s")
    print(f"pocketbase_uid={uids[0]} pocketbase_token={tokens[0]} pocketbase_token2={tokens[1]}")


def profile_data(bio):
    """A user-profile-like record: strings, numbers, a bool, an array, a nested object."""
    return {
        "name": "Ada Lovelace", "email": "ada@example.com", "age": 36, "active": True, "plan": "pro",
        "tags": ["math", "engines", "poetry"],
        "address": {"street": "12 St James's Square", "city": "London", "country": "GB"},
        "scores": [98, 87, 91], "bio": bio,
    }


def load_kura(args):
    auth = {"Authorization": f"Bearer {args.key}"}
    tokens, uids = [], []
    for i in range(1, args.accounts + 1):
        signed_up = request(
            args.url, "POST", "/api/auth/signup", {"email": f"bench-{i}@example.com", "password": args.password}
        )
        tokens.append(signed_up["idToken"])
        uids.append(signed_up["user"]["uid"])
    # The profile, its bio sized so that the owner's GET body is GET_BYTES (a retry covers a surprise).
    filler = "Analyst and writer; notes on the Analytical Engine, Bernoulli numbers and poetical science. " * 20
    bio_length = 600
    for _ in range(3):
        data = profile_data(filler[:bio_length])
        request(args.url, "PUT", f"/api/docs/profiles/{PROFILE_ID}", {"data": {"owner": uids[0], **data}}, auth)
        _, _, body = call(args.url, "GET", f"/api/docs/profiles/{PROFILE_ID}", None,
                          {"Authorization": f"Bearer {tokens[0]}"})
        if len(body) == GET_BYTES:
            break
        bio_length += GET_BYTES - len(body)
    for record_id in FEED_IDS:
        request(args.url, "PUT", f"/api/docs/feed/{record_id}", {"data": {"owner": uids[0], "seq": -1}}, auth)
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
        f"# kura: {args.docs} documents in {loaded - began:.1f} s, index (cat ASC, n DESC) built in"
        f" {time.monotonic() - loaded:.1f} s"
    )
    print(f"kura_uid={uids[0]} kura_token={tokens[0]} kura_token2={tokens[1]}")
    print(f"profile_data={shlex.quote(json.dumps(data, separators=(',', ':')))}")


def load_profile(args):
    data = json.loads(args.data)
    request(
        args.url, "POST", "/api/collections/profiles/records", {"id": PROFILE_ID, "owner": args.uid, **data},
        {"Authorization": args.token},
    )


def expect(side, what, status, want):
    if status not in want:
        fail(f"{side}: {what}: HTTP {status}, expected {' or '.join(map(str, sorted(want)))}")


def check(args):
    kura, pocketbase = args.kura, args.pocketbase
    kura_user = {"Authorization": f"Bearer {args.kura_token}"}
    kura_other = {"Authorization": f"Bearer {args.kura_token2}"}
    pocketbase_user = {"Authorization": args.pocketbase_token}
    pocketbase_other = {"Authorization": args.pocketbase_token2}

    # 1. Health.
    expect("kura", "GET /api/health", call(kura, "GET", "/api/health")[0], {200})
    expect("pocketbase", "GET /api/health", call(pocketbase, "GET", "/api/health")[0], {200})

    # 2. The owner reads the profile; another user is refused (kura 403, PocketBase 404).
    status, kura_doc, kura_body = call(kura, "GET", f"/api/docs/profiles/{PROFILE_ID}", None, kura_user)
    expect("kura", "the owner's GET", status, {200})
    status, pocketbase_doc, pocketbase_body = call(
        pocketbase, "GET", f"/api/collections/profiles/records/{PROFILE_ID}", None, pocketbase_user
    )
    expect("pocketbase", "the owner's GET", status, {200})
    kura_data = dict(kura_doc["data"])
    pocketbase_data = {k: v for k, v in pocketbase_doc.items() if k not in POCKETBASE_META}
    if kura_data.pop("owner") != args.kura_uid or pocketbase_data.pop("owner") != args.pocketbase_uid:
        fail("the profiles' owners are not the users")
    if kura_data != pocketbase_data:
        fail(f"the profiles differ: kura {kura_data}, pocketbase {pocketbase_data}")
    expect("kura", "another user's GET", call(kura, "GET", f"/api/docs/profiles/{PROFILE_ID}", None, kura_other)[0],
           {403})
    expect("pocketbase", "another user's GET", call(
        pocketbase, "GET", f"/api/collections/profiles/records/{PROFILE_ID}", None, pocketbase_other)[0], {404})
    print(f"# profile: the same {len(kura_data)} fields; GET bodies kura {len(kura_body)} bytes, PocketBase"
          f" {len(pocketbase_body)} bytes")
    print(f"get_bytes_kura={len(kura_body)} get_bytes_pocketbase={len(pocketbase_body)}")

    # 3. Creates: the owner's is stored, one naming another owner is refused (kura 403, PocketBase 400).
    fields = {"title": "benchmark create", "status": "open", "rank": 4711, "tags": ["a", "b"]}
    status, created, _ = call(kura, "POST", "/api/docs/creates", {"data": {"owner": args.kura_uid, **fields}}, kura_user)
    expect("kura", "the owner's create", status, {201})
    if created["data"] != {"owner": args.kura_uid, **fields}:
        fail(f"kura stored {created['data']}")
    status, created, _ = call(pocketbase, "POST", "/api/collections/creates/records",
                              {"owner": args.pocketbase_uid, **fields}, pocketbase_user)
    expect("pocketbase", "the owner's create", status, {200})
    if {k: v for k, v in created.items() if k not in POCKETBASE_META} != {"owner": args.pocketbase_uid, **fields}:
        fail(f"pocketbase stored {created}")
    expect("kura", "a create for another owner", call(
        kura, "POST", "/api/docs/creates", {"data": {"owner": "someone-else", **fields}}, kura_user)[0], {403})
    expect("pocketbase", "a create for another owner", call(
        pocketbase, "POST", "/api/collections/creates/records", {"owner": "someone-else", **fields},
        pocketbase_user)[0], {400, 403})

    # 4. The query.
    kura_answer = request(kura, "POST", "/api/query", QUERY, {"Authorization": f"Bearer {args.key}"})
    pocketbase_answer = request(pocketbase, "GET", POCKETBASE_QUERY)
    kura_n = [d["data"]["n"] for d in kura_answer["documents"]]
    pocketbase_n = [int(r["n"]) for r in pocketbase_answer["items"]]
    if kura_n != pocketbase_n or len(kura_n) != 20:
        fail(f"the query's answers differ: kura {kura_n}, pocketbase {pocketbase_n}")
    print(f"# query: both answer n = {kura_n[0]}, {kura_n[1]}, … {kura_n[-1]}")

    # 5. Sign-in: the password works, a wrong one is refused with 400 on both.
    status, signed_in, _ = call(kura, "POST", "/api/auth/signin",
                                {"email": "bench-1@example.com", "password": args.password})
    expect("kura", "sign-in", status, {200})
    if signed_in["user"]["uid"] != args.kura_uid:
        fail("kura signed in someone else")
    status, signed_in, _ = call(pocketbase, "POST", "/api/collections/users/auth-with-password",
                                {"identity": "bench-1@example.com", "password": args.password})
    expect("pocketbase", "sign-in", status, {200})
    if signed_in["record"]["id"] != args.pocketbase_uid:
        fail("pocketbase signed in someone else")
    expect("kura", "a wrong password", call(
        kura, "POST", "/api/auth/signin", {"email": "bench-1@example.com", "password": "wrong-password"})[0], {400})
    expect("pocketbase", "a wrong password", call(
        pocketbase, "POST", "/api/collections/users/auth-with-password",
        {"identity": "bench-1@example.com", "password": "wrong-password"})[0], {400})
    print("# health, the owner's GET, creates, the query and sign-in answer alike (refusals included)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["pocketbase", "kura", "profile", "check"])
    for name in ("url", "token", "key", "kura", "pocketbase", "password", "uid", "data", "kura-uid", "kura-token",
                 "kura-token2", "pocketbase-uid", "pocketbase-token", "pocketbase-token2"):
        parser.add_argument(f"--{name}")
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--accounts", type=int, default=8)
    args = parser.parse_args()
    {"pocketbase": load_pocketbase, "kura": load_kura, "profile": load_profile, "check": check}[args.command](args)


if __name__ == "__main__":
    main()
