#!/usr/bin/env python3
"""Listener churn for bench/soak.sh (standard library only).

  soak_listen.py --port PORT --tokens FILE --listeners 32 --stop-file FILE --log FILE [--hold-ms 500-3000]
                 [--seconds 86400]

LISTENERS threads, each in a loop until STOP_FILE exists (or SECONDS have passed): open GET /api/listen on the notes of one account
(`users/<uid>/notes orderBy n desc limit 10`, as that user: rule-checked, and written by the wrk mix), read until the
snapshot event, keep reading the stream (its changes) for a random HOLD, close the connection, open the next.
FILE has "<uid> <ID token>" lines. Each opened stream appends a line to LOG:

    <unix time the open began> <status> <ms to the snapshot>

where status is the HTTP status of the answer, or `ERR` (with the reason after the time) when the connection failed
or closed before the snapshot. A stream the server ends while it is held is `CLOSED` (also an error). The last line
on stdout is `listen_opens=… listen_errors=…`.
"""

import argparse
import json
import os
import random
import socket
import threading
import time
import urllib.parse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tokens", required=True)
    parser.add_argument("--listeners", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=86400)
    parser.add_argument("--stop-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--hold-ms", default="500-3000")
    args = parser.parse_args()
    accounts = [line.split() for line in open(args.tokens) if line.strip()]
    hold_low, hold_high = (int(v) for v in args.hold_ms.split("-"))
    deadline = time.monotonic() + args.seconds
    log = open(args.log, "a", buffering=1)
    lock = threading.Lock()
    totals = {"opens": 0, "errors": 0}

    def record(began, status, ms, reason=""):
        with lock:
            log.write(f"{began:.3f} {status} {ms:.2f}{' ' + reason if reason else ''}\n")
            totals["opens"] += status != "CLOSED"
            if status != "200":
                totals["errors"] += status not in ("429", "503")

    def listener(index):
        rng = random.Random(index)
        while time.monotonic() < deadline and not os.path.exists(args.stop_file):
            uid, token = accounts[rng.randrange(len(accounts))]
            query = json.dumps(
                {"collection": f"users/{uid}/notes", "orderBy": [{"field": "n", "direction": "desc"}], "limit": 10}
            )
            request = (
                f"GET /api/listen?query={urllib.parse.quote(query)} HTTP/1.1\r\nHost: soak\r\n"
                f"Accept: text/event-stream\r\nAuthorization: Bearer {token}\r\n\r\n"
            ).encode()
            began = time.time()
            started = time.monotonic()
            sock = None
            try:
                sock = socket.create_connection(("127.0.0.1", args.port), timeout=30)
                sock.sendall(request)
                received = b""
                status = None
                while b"event: snapshot" not in received:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    received += chunk
                    if status is None and b"\r\n" in received:
                        status = received.split(b" ", 2)[1].decode()
                        if status != "200":
                            break
                if status != "200":
                    record(began, status or "ERR", (time.monotonic() - started) * 1000, "" if status else "eof")
                    if status in ("429", "503"):
                        time.sleep(1)  # Retry-After: 1
                    continue
                if b"event: snapshot" not in received:
                    record(began, "ERR", (time.monotonic() - started) * 1000, "eof-before-snapshot")
                    continue
                record(began, "200", (time.monotonic() - started) * 1000)
                hold_until = time.monotonic() + rng.uniform(hold_low, hold_high) / 1000
                while time.monotonic() < hold_until:
                    sock.settimeout(max(0.01, hold_until - time.monotonic()))
                    try:
                        if not sock.recv(65536):
                            record(time.time(), "CLOSED", 0, "server-ended-stream")
                            break
                    except socket.timeout:
                        break
            except OSError as error:
                record(began, "ERR", (time.monotonic() - started) * 1000, type(error).__name__)
            finally:
                if sock:
                    sock.close()

    threads = [threading.Thread(target=listener, args=(i,), daemon=True) for i in range(args.listeners)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"listen_opens={totals['opens']} listen_errors={totals['errors']}", flush=True)


if __name__ == "__main__":
    main()
