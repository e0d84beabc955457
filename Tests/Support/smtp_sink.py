#!/usr/bin/env python3
"""A real SMTP server for the KuraMail tests: aiosmtpd on 127.0.0.1:PORT, one file pair per accepted mail.

Usage: smtp_sink.py PORT DIR [--user NAME --password SECRET] [--faults F1,F2,…]

For each mail N (counting from 1) it writes DIR/N.eml (the raw message) and DIR/N.json (the envelope plus the
message as Python's email package parses it: decoded headers, each part's type and decoded text, and any MIME
defects found), each written to a temporary name and renamed, so a reader never sees half a file. DIR/ready appears
once the server listens. With --user, AUTH PLAIN/LOGIN is required (over plain TCP, as tests have no TLS).
Runs until SIGTERM or SIGINT.

--faults: what the sink does with the first messages it is sent, one fault per message (at DATA), in order; the
messages after them are accepted. A fault is an SMTP reply code (`451` and other 4xx: a transient refusal; `550`
and other 5xx: a permanent one), `timeout` (no answer for 5 s), `drop` (the connection closes before the message
is kept) or `drop-after-accept` (the message is kept, then the connection closes before the 250: the client cannot
know it was delivered). DIR/faults-used holds how many faults have been played.
"""
import warnings
warnings.filterwarnings("ignore")

import argparse
import asyncio
import email
import email.policy
import json
import os
import signal
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult


def write_atomically(path, data):
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        f.write(data)
    os.rename(temporary, path)


class Sink:
    def __init__(self, directory, faults=()):
        self.directory = directory
        self.count = 0
        self.lock = threading.Lock()
        self.faults = list(faults)
        self.faults_used = 0

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            fault = self.faults.pop(0) if self.faults else None
            if fault is not None:
                self.faults_used += 1
                write_atomically(os.path.join(self.directory, "faults-used"), b"%d\n" % self.faults_used)
        if fault == "timeout":
            await asyncio.sleep(5)
            return "451 too late"
        if fault == "drop":
            server.transport.abort()
            return "451 dropped"
        if fault is not None and fault.isdigit():
            return "%s fault injected by the test" % fault
        reply = self.keep(envelope)
        if fault == "drop-after-accept":
            server.transport.abort()
        return reply

    def keep(self, envelope):
        raw = envelope.original_content or envelope.content
        message = email.message_from_bytes(raw, policy=email.policy.default)
        parts = []
        defects = [str(d) for d in message.defects]
        for part in message.walk():
            defects += [str(d) for d in part.defects]
            if part.is_multipart():
                continue
            parts.append({
                "contentType": part.get_content_type(),
                "charset": part.get_content_charset(),
                "transferEncoding": part.get("Content-Transfer-Encoding"),
                "content": part.get_content(),
            })
        parsed = {
            "mailFrom": envelope.mail_from,
            "rcptTos": envelope.rcpt_tos,
            "from": str(message["From"]),
            "to": str(message["To"]),
            "subject": str(message["Subject"]),
            "date": str(message["Date"]),
            "messageID": str(message["Message-ID"]),
            "mimeVersion": str(message["MIME-Version"]),
            "contentType": message.get_content_type(),
            "parts": parts,
            "defects": defects,
        }
        with self.lock:
            self.count += 1
            n = self.count
        base = os.path.join(self.directory, str(n))
        write_atomically(base + ".eml", raw)
        write_atomically(base + ".json", json.dumps(parsed, ensure_ascii=False).encode("utf-8"))
        return "250 OK queued as %d" % n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("directory")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--faults", default="")
    args = parser.parse_args()
    os.makedirs(args.directory, exist_ok=True)

    options = {}
    if args.user is not None:
        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = auth_data.login == args.user.encode() and auth_data.password == (args.password or "").encode()
            return AuthResult(success=ok)
        options = {"authenticator": authenticator, "auth_required": True, "auth_require_tls": False}

    controller = Controller(Sink(args.directory, [f for f in args.faults.split(",") if f]), hostname="127.0.0.1", port=args.port, **options)
    controller.start()
    write_atomically(os.path.join(args.directory, "ready"), b"%d\n" % args.port)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    # A timed wait, so the signal handler runs promptly (an untimed wait can sleep through it).
    while not stop.wait(0.1):
        pass
    controller.stop()


if __name__ == "__main__":
    main()
