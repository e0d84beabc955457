-- wrk script for bench/soak.sh: a mix of reads, writes and queries, as the administrator and as users (rule-checked).
-- The environment gives SOAK_KEY (the admin key), SOAK_ITEMS (documents items/d00000000 … , seeded),
-- SOAK_NOTES (notes users/<uid>/notes/n0 … n<N-1> per account, seeded) and SOAK_TOKENS (a file of "<uid> <ID token>"
-- lines, one per account). Per request, at random:
--   30 %  GET items/d<k> (admin)                        15 %  GET users/<uid>/notes/n<k> (user, rule-checked)
--   10 %  PATCH items/d<k> {"data":{"rank":…}} (admin)   15 %  PUT users/<uid>/notes/n<k> (user, rule-checked)
--   20 %  POST /api/query items `status == S orderBy rank desc limit 20` (admin)
--   10 %  POST /api/query users/<uid>/notes `orderBy n desc limit 10` (user, rule-checked)
-- Every answer is counted by status; at the end it prints `soak_status <status>=<count> …` and the first answer that
-- was neither 2xx, 429 nor 503, for bench/soak.sh to check (wrk's own non-2xx count would hide which status).
local threads = {}
local next_id = 0

function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
    table.insert(threads, thread)
end

local key, items, notes, accounts, n
local statuses = { "open", "closed", "pending", "blocked", "archived" }
-- Globals, not locals: `done` reads them with thread:get.
counts, first_bad = {}, nil

function init(args)
    key = os.getenv("SOAK_KEY") or ""
    items = tonumber(os.getenv("SOAK_ITEMS")) or 1
    notes = tonumber(os.getenv("SOAK_NOTES")) or 1
    accounts = {}
    for line in io.lines(os.getenv("SOAK_TOKENS")) do
        local uid, token = line:match("^(%S+) (%S+)$")
        if uid then table.insert(accounts, { uid = uid, token = token }) end
    end
    math.randomseed(os.time() + (id or 0) * 7919)
    n = 0
end

local function admin(method, path, body)
    local headers = { ["Authorization"] = "Bearer " .. key }
    if body then headers["Content-Type"] = "application/json" end
    return wrk.format(method, path, headers, body)
end

local function user(account, method, path, body)
    local headers = { ["Authorization"] = "Bearer " .. account.token }
    if body then headers["Content-Type"] = "application/json" end
    return wrk.format(method, path, headers, body)
end

function request()
    n = n + 1
    local r = math.random(100)
    local account = accounts[math.random(#accounts)]
    if r <= 30 then
        return admin("GET", string.format("/api/docs/items/d%08d", math.random(0, items - 1)))
    elseif r <= 45 then
        return user(account, "GET", "/api/docs/users/" .. account.uid .. "/notes/n" .. math.random(0, notes - 1))
    elseif r <= 55 then
        return admin("PATCH", string.format("/api/docs/items/d%08d", math.random(0, items - 1)),
            string.format('{"data":{"rank":%d}}', math.random(0, 1000000)))
    elseif r <= 70 then
        return user(account, "PUT", "/api/docs/users/" .. account.uid .. "/notes/n" .. math.random(0, notes - 1),
            string.format('{"data":{"n":%d,"text":"soak note %d from thread %d"}}', n, n, id or 0))
    elseif r <= 90 then
        local body = string.format('{"collection":"items","where":[{"field":"status","op":"==","value":"%s"}],'
            .. '"orderBy":[{"field":"rank","direction":"desc"}],"limit":20}', statuses[math.random(#statuses)])
        return admin("POST", "/api/query", body)
    else
        local body = string.format('{"collection":"users/%s/notes","orderBy":[{"field":"n","direction":"desc"}],'
            .. '"limit":10}', account.uid)
        return user(account, "POST", "/api/query", body)
    end
end

function response(status, headers, body)
    counts[status] = (counts[status] or 0) + 1
    if not first_bad and not (status >= 200 and status < 300) and status ~= 429 and status ~= 503 then
        first_bad = status .. " " .. string.sub(body, 1, 300)
    end
end

-- wrk calls `response` in each thread's own Lua state; `done` reads the counts from those states.
function done(summary, latency, requests)
    local total, example = {}, nil
    for _, thread in ipairs(threads) do
        for status, count in pairs(thread:get("counts")) do total[status] = (total[status] or 0) + count end
        example = example or thread:get("first_bad")
    end
    local line = "soak_status"
    for status, count in pairs(total) do line = line .. string.format(" %d=%d", status, count) end
    io.write(line .. "\n")
    if example then io.write("soak_first_bad=" .. example .. "\n") end
end
