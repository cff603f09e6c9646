-- wrk script of the harness: GET BENCH_PATH, where "{id}" is replaced by a random line of
-- BENCH_IDS_FILE (customer ids of the bench company), with the Authorization header BENCH_AUTH
-- and, when BENCH_ACCEPT_ENCODING is set, that Accept-Encoding.
-- Prints one line "BENCH_RESULT {json}" at the end for bench/load/wrk.ts to read.
local path = os.getenv("BENCH_PATH")
local ids_file = os.getenv("BENCH_IDS_FILE")
wrk.headers["Authorization"] = os.getenv("BENCH_AUTH")
local accept_encoding = os.getenv("BENCH_ACCEPT_ENCODING")
if accept_encoding and accept_encoding ~= "" then wrk.headers["Accept-Encoding"] = accept_encoding end
local ids = {}

function init(args)
  if ids_file and ids_file ~= "" then
    for line in io.lines(ids_file) do ids[#ids + 1] = line end
  end
  math.randomseed(math.floor(os.clock() * 1000000) + os.time())
end

function request()
  if #ids > 0 then
    return wrk.format(nil, (path:gsub("{id}", ids[math.random(#ids)])))
  end
  return wrk.format(nil, path)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
