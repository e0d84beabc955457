-- wrk script for bench/auth.sh: every request signs in, POST <url> (…/api/auth/signin) with the email and password
-- of one of the benchmark's accounts, rotating among them. The environment gives SIGNIN_ACCOUNTS and
-- SIGNIN_PASSWORD (bench/lib.sh's `measure` puts wrk's arguments before the URL, so no `-- args`): the accounts are
-- bench-1@example.com … bench-<SIGNIN_ACCOUNTS>@example.com, made by bench/auth.sh with POST /api/auth/signup.
-- Every answer must be 200 with an idToken; at the end it prints `signin_checked=<answers> signin_bad=<others>` and
-- the first wrong answer, for bench/auth.sh to check (wrk's own non-2xx count would let a 201 or 204 pass).
local threads = {}
local next_id = 0

function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
    table.insert(threads, thread)
end

local accounts, password, n
-- Globals, not locals: `done` reads them with thread:get.
checked, bad, first_bad = 0, 0, nil

function init(args)
    accounts = tonumber(os.getenv("SIGNIN_ACCOUNTS")) or 1
    password = os.getenv("SIGNIN_PASSWORD") or ""
    n = id or 0 -- each thread starts on another account
end

function request()
    n = n + 1
    local body = string.format('{"email":"bench-%d@example.com","password":"%s"}', n % accounts + 1, password)
    return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
    checked = checked + 1
    if status ~= 200 or not string.find(body, '"idToken"', 1, true) then
        bad = bad + 1
        if not first_bad then first_bad = status .. " " .. string.sub(body, 1, 300) end
    end
end

-- wrk calls `response` in each thread's own Lua state; `done` reads the counts from those states.
function done(summary, latency, requests)
    local total_checked, total_bad, example = 0, 0, nil
    for _, thread in ipairs(threads) do
        total_checked = total_checked + thread:get("checked")
        total_bad = total_bad + thread:get("bad")
        example = example or thread:get("first_bad")
    end
    io.write(string.format("signin_checked=%d signin_bad=%d\n", total_checked, total_bad))
    if example then io.write("signin_first_bad=" .. example .. "\n") end
end
