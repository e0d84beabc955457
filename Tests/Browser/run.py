"""The kura.js browser suite: real headless Chromium against a real `kura` binary (`make test-browser`).

Usage: run.py --kura PATH [--filter TEXT] [--screenshots DIR]

Prints one line per test, as the Swift suites do, and a closing `N passed, N failed`; exits non-zero when a test
failed. Each test gets a fresh Kura data directory; a screenshot of its first page goes to --screenshots.
"""

import argparse
import os
import sys
import time
import traceback

import harness
import suite_auth  # noqa: F401  (registers tests)
import suite_data  # noqa: F401
import suite_queries  # noqa: F401  (or/and, several inequalities, aggregations)
import suite_realtime  # noqa: F401
import suite_offline  # noqa: F401
import suite_web  # noqa: F401
import suite_types  # noqa: F401
import suite_units  # noqa: F401
import suite_names  # noqa: F401  (Firebase's further names: Timestamp, settings, credentials…)
import suite_quiz  # noqa: F401  (apps/quiz, the "7th place" quiz app)
import suite_places  # noqa: F401  (the places app: apps/places)
import suite_landing  # noqa: F401  (the landing page make run serves at /: apps/index.html)
import suite_cluster  # noqa: F401  (several nodes on PostgreSQL, nginx in front: docs/scaling.md)
import suite_calc  # noqa: F401  (the calculator app, apps/calc)
import suite_notes  # noqa: F401  (the notebooks app, apps/notes)
import suite_todo  # noqa: F401  (the to-do app, apps/todo, and Kura's action pages)
import suite_console  # noqa: F401  (the admin console at /_/: web/console)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kura", required=True)
    parser.add_argument("--filter", default="")
    parser.add_argument("--screenshots", default=os.path.join(harness.ROOT, ".build", "browser-screenshots"))
    arguments = parser.parse_args()
    harness.SCREENSHOTS = arguments.screenshots  # suites that save screenshots of their own (suite_calc.py)
    tests = [(name, run) for name, run in harness.TESTS if arguments.filter.lower() in name.lower()]
    started = time.time()
    print(f"◇ Browser suite started: {len(tests)} tests, headless Chromium, {arguments.kura}", flush=True)
    driver = harness.make_driver()
    static = harness.StaticServer()
    passed = failed = 0
    try:
        for name, run in tests:
            context = harness.Context(driver, arguments.kura, static, name)
            begin = time.time()
            error = None
            try:
                run(context)
            except Exception as exception:  # noqa: BLE001 - any failure is reported and the suite goes on
                error = exception
            log = context.pages[0].browser_log() if context.pages and error else []
            server_log = ""
            if error and context.kura and os.path.exists(context.kura.log_path):
                server_log = open(context.kura.log_path).read()[-1500:]
            try:
                context.close(arguments.screenshots)
            except Exception:  # noqa: BLE001
                pass
            failures = [(n, d) for n, ok, d in context.checks if not ok]
            seconds = time.time() - begin
            if error is None and not failures and context.checks:
                passed += 1
                print(f"✔ Test \"{name}\" passed after {seconds:.3f} seconds ({len(context.checks)} checks).",
                      flush=True)
                continue
            failed += 1
            where = f" (kura at {context.kura.url})" if context.kura else ""
            print(f"✘ Test \"{name}\" failed after {seconds:.3f} seconds{where}.", flush=True)
            for check, detail in failures:
                print(f"    ✘ {check}: {detail}")
            if not context.checks and error is None:
                print("    ✘ the test made no checks")
            if error is not None:
                text = (str(error) if isinstance(error, harness.CheckFailed)
                        else "".join(traceback.format_exception(error)))
                print("    " + text.replace("\n", "\n    ")[:3000])
                for line in log[-10:]:
                    print(f"    console: {line[:300]}")
                if server_log:
                    print("    server log: " + server_log.replace("\n", "\n    "))
            sys.stdout.flush()
    finally:
        static.close()
        driver.quit()
    print(f"✔ Browser suite finished after {time.time() - started:.1f} seconds." if not failed
          else f"✘ Browser suite finished after {time.time() - started:.1f} seconds with {failed} failures.")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
