"""Queries beyond plain filters through kura.js: or/and, inequalities on several fields, aggregations, and the
offline cache's local evaluation of the same queries."""

from harness import test


@test("queries: or, and, inequalities on several fields, getAggregateFromServer, getCountFromServer")
def composite_queries(t):
    page = t.page()
    page.step("auth", "signUp", "or@example.com")
    page.step("queries", "seed")
    page.step("queries", "compositeQueries")
    page.step("queries", "aggregates")


@test("queries: the offline cache evaluates or/and and several inequalities as the server does")
def composite_cache(t):
    page = t.page(persistence="indexeddb")
    page.step("auth", "signUp", "cache@example.com")
    page.step("queries", "seed")
    page.step("queries", "compositeQueries")
    page.step("queries", "cacheAgrees")
