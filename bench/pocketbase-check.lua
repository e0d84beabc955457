-- wrk script tail for bench/pocketbase.sh: the script writes a header per row and side (wrk.method, wrk.body,
-- wrk.headers, and the globals row, side, expect_status, expect_text and optionally bodies) and appends this file.
-- Every answer must have status expect_status and, if expect_text is set, contain it (wrk's own count of non-2xx
-- answers would let a 200 pass for a 201). With `bodies`, the requests rotate through them (each thread starting at
-- another). At the end one line `<row> <side> <answers> <wrong answers> <first wrong answer>` is appended to the
-- file named by PB_CHECK_LOG, which the script sums after each row.
local threads = {}
local next_id = 0

function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
    table.insert(threads, thread)
end

-- Globals, not locals: `done` reads them with thread:get.
checked, bad, first_bad = 0, 0, nil
local n = 0

function init(args)
    n = id or 0
end

if bodies then
    function request()
        n = n + 1
        return wrk.format(nil, nil, nil, bodies[n % #bodies + 1])
    end
end

function response(status, headers, body)
    checked = checked + 1
    if status ~= expect_status or (expect_text and not string.find(body, expect_text, 1, true)) then
        bad = bad + 1
        if not first_bad then first_bad = status .. " " .. string.sub(string.gsub(body, "%s+", " "), 1, 200) end
    end
end

function done(summary, latency, requests)
    local total_checked, total_bad, example = 0, 0, nil
    for _, thread in ipairs(threads) do
        total_checked = total_checked + thread:get("checked")
        total_bad = total_bad + thread:get("bad")
        example = example or thread:get("first_bad")
    end
    local log = io.open(os.getenv("PB_CHECK_LOG") or "/dev/null", "a")
    log:write(string.format("%s %s %d %d %s\n", row, side, total_checked, total_bad, example or "-"))
    log:close()
end
