-- wrk script for bench/postgres.sh's hot step: every request increments `n` of one document in a commit, as a user
-- whose rules read the document (so each write is rule-checked and pinned). postgres.sh gives the URL
-- (…/api/commit) and the Authorization header (-H) on wrk's command line.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"writes":[{"op":"update","path":"hot/h","data":{},"transforms":[{"field":"n","increment":1}]}]}'
