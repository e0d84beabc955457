"""Documents, queries, field values, batches and transactions through kura.js."""

from harness import test


@test("documents: getDoc, setDoc (merge), addDoc, updateDoc (dotted paths), deleteDoc, field values, error codes")
def documents(t):
    page = t.page()
    page.step("auth", "signUp", "doc@example.com")
    path = page.step("data", "documentCalls")
    status, body, _ = t.kura.api("GET", f"/api/docs/{path}")
    t.equal("the server holds what the page wrote", (status, body["data"] if body else None),
            (200, {"title": "eggs", "n": 12, "tags": ["b", "c"], "address": {"city": "Kyoto", "zip": "600"},
                   "extra": True}))
    page.step("data", "errorCodes")


@test("queries: where, orderBy, limit, limitToLast, cursors, collection groups, getCountFromServer")
def queries(t):
    page = t.page()
    page.step("auth", "signUp", "query@example.com")
    page.step("data", "queries")


@test("writeBatch and runTransaction (concurrent transactions retry)")
def batches(t):
    page = t.page()
    page.step("auth", "signUp", "tx@example.com")
    page.step("data", "batchesAndTransactions")


@test("kura.js runs in a module worker (no DOM)")
def worker(t):
    page = t.page()
    page.step("data", "inWorker")
