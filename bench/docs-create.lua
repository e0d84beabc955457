-- wrk script for bench/docs.sh: every request creates a document, POST <url> with a small JSON body.
-- bench/docs.sh gives the URL (…/api/docs/bench_creates) and the Authorization header (-H) on wrk's command line.
-- The body stays on one line in this form: docs.sh reads its size from here.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"data":{"title":"benchmark create","status":"open","rank":4711,"owner":"bench","tags":["a","b"]}}'
