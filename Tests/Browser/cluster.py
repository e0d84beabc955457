"""Machinery for the several-node tests (suite_cluster.py): a throwaway PostgreSQL (with a streaming standby when
asked), `kura` nodes on it, and nginx in front of them with the shipped configuration (deploy/nginx/kura-nodes.conf).
"""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

from harness import ROOT, Kura, free_port

POSTGRES_SCRIPT = os.path.join(ROOT, "Tests", "Support", "postgres_server.sh")
NGINX_SITE = os.path.join(ROOT, "deploy", "nginx", "kura-nodes.conf")


def _script(*arguments):
    output = subprocess.run(["bash", POSTGRES_SCRIPT, *arguments], check=True, capture_output=True, text=True,
                            timeout=120).stdout.split("\n")
    return output


class Postgres:
    """One server of Tests/Support/postgres_server.sh (stopped with the test process at the latest)."""

    def __init__(self, standby_of=None):
        if standby_of is None:
            lines = _script("start", "--owner-pid", str(os.getpid()))
        else:
            lines = _script("standby", standby_of.directory, "--owner-pid", str(os.getpid()))
        self.url, self.directory = lines[0], lines[1]

    @property
    def host_and_port(self):
        return re.match(r"postgresql://[^@]*@([^/]+)/", self.url).group(1)

    def sql(self, statement):
        """Runs `statement` with psql; returns its unaligned output."""
        return subprocess.run(["psql", self.url, "-X", "-q", "-A", "-t", "-c", statement], check=True,
                              capture_output=True, text=True, timeout=60).stdout.strip()

    def kill(self):
        _script("kill", self.directory)

    def promote(self):
        _script("promote", self.directory)

    def close(self):
        try:
            _script("stop", self.directory)
        except subprocess.CalledProcessError:
            pass


class Node(Kura):
    """A `kura serve` node on the PostgreSQL engine; `kill()` is `kill -9`."""

    def __init__(self, binary, url, settings=None):
        super().__init__(binary, settings={"store.engine": "postgres", "store.url": url,
                                           "realtime.heartbeatSeconds": "1", **(settings or {})})

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None


class Nginx:
    """nginx on a free port with deploy/nginx/kura-nodes.conf, its upstreams pointed at `nodes`."""

    def __init__(self, nodes):
        self.directory = tempfile.mkdtemp(prefix="kura-nginx-")
        os.chmod(self.directory, 0o755)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        site = open(NGINX_SITE).read()
        servers = "".join(f"    server 127.0.0.1:{n.port} max_fails=1 fail_timeout=3s;\n" for n in nodes)
        site = re.sub(r"(?m)^    server 127\.0\.0\.1:809[12] .*\n", "", site)
        site = re.sub(r"(upstream kura_(nodes|listen) \{\n(    [^\n]*;\n)*?)(    (least_conn|hash)[^\n]*\n)",
                      lambda m: m.group(0) + servers, site)
        site = site.replace("listen 8090;", f"listen 127.0.0.1:{self.port};")
        d = self.directory
        main = f"""worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 512; }}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
{site}
}}
"""
        self.config = os.path.join(d, "nginx.conf")
        with open(self.config, "w") as f:
            f.write(main)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen([nginx, "-p", d, "-c", self.config, "-e", f"{d}/error.log"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while True:
            try:
                urllib.request.urlopen(self.url + "/api/health", timeout=1).read()
                return
            except OSError:
                if self.process.poll() is not None or time.time() > deadline:
                    log = open(f"{d}/error.log").read() if os.path.exists(f"{d}/error.log") else ""
                    self.close()
                    raise RuntimeError(f"nginx did not start: {log[-1500:]}")
                time.sleep(0.05)

    def access_log(self):
        return open(os.path.join(self.directory, "access.log")).read()

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)


def wait_until(what, predicate, timeout=20):
    """Polls `predicate` until it returns a truthy value; returns it, or raises after `timeout` seconds."""
    deadline = time.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.time() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)
