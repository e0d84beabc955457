"""Pieces of kura.js checked in the browser: the SSE parser, docChanges, and the local query engine (offline
reads) against the server on random data."""

from harness import test


@test("units: the SSE parser and docChanges indices", start=False)
def units(t):
    page = t.page()
    page.step("units", "eventStreamParser")
    page.step("units", "docChangesDiff")
    page.step("units", "dataErrorCodes")


@test("units: the offline query engine answers random queries exactly as the server")
def local_engine(t):
    page = t.page(persistence="indexeddb")
    page.step("auth", "signUp", "engine@example.com")
    for seed in (11, 12):
        page.step("units", "localEngineAgrees", seed)
