-- wrk: POST the same small chat completion on every request. Extra headers come from the
-- environment (WRK_HEADERS="Name: value|Name: value"), for Portkey's provider headers.
wrk.method = "POST"
wrk.body = os.getenv("WRK_BODY")
wrk.headers["Content-Type"] = "application/json"
local extra = os.getenv("WRK_HEADERS")
if extra then
  for pair in string.gmatch(extra, "[^|]+") do
    local name, value = string.match(pair, "^%s*([^:]+):%s*(.*)$")
    if name then wrk.headers[name] = value end
  end
end
