-- query.lua -- the records benchmark query in plain Lua (lua5.4).
--
-- Usage: lua5.4 query.lua commits.lua
-- Loads the data with dofile (not timed), then times only the query with
-- os.clock (CPU time of this process; the query is single-threaded and does
-- no I/O, so it matches wall time). Prints the answer as JSON on stdout and
-- `time_ms: N` on stderr.
--
-- Query: keep files >= 3 and additions > 10; stable sort by timestamp desc;
-- group by author; per author count, sum additions, sum deletions, average
-- files and latest (first timestamp in the group); top 10 by additions desc,
-- then author asc.

local commits = dofile(arg[1])

local function query(commits)
  -- 1. filter
  local kept, n = {}, 0
  for i = 1, #commits do
    local c = commits[i]
    if c.files >= 3 and c.additions > 10 then
      n = n + 1
      kept[n] = c
    end
  end

  -- 2. sort by timestamp desc. table.sort is not stable, so ties are broken
  --    by the original position to make it stable.
  local pos = {}
  for i = 1, n do pos[kept[i]] = i end
  table.sort(kept, function(a, b)
    if a.timestamp ~= b.timestamp then return a.timestamp > b.timestamp end
    return pos[a] < pos[b]
  end)

  -- 3. group by author (groups keep the sorted order)
  local groups, order = {}, {}
  for i = 1, n do
    local c = kept[i]
    local g = groups[c.author]
    if not g then
      g = {}
      groups[c.author] = g
      order[#order + 1] = c.author
    end
    g[#g + 1] = c
  end

  -- 4. per-author aggregates
  local rows = {}
  for _, author in ipairs(order) do
    local cs = groups[author]
    local adds, dels, files = 0, 0, 0
    for i = 1, #cs do
      local c = cs[i]
      adds = adds + c.additions
      dels = dels + c.deletions
      files = files + c.files
    end
    rows[#rows + 1] = {
      author = author, commits = #cs, additions = adds, deletions = dels,
      avg_files = files / #cs, latest = cs[1].timestamp,
    }
  end

  -- 5. top 10 by additions desc, author asc (author is unique: a total order)
  table.sort(rows, function(a, b)
    if a.additions ~= b.additions then return a.additions > b.additions end
    return a.author < b.author
  end)
  local top = {}
  for i = 1, math.min(10, #rows) do top[i] = rows[i] end
  return top
end

local t0 = os.clock()
local answer = query(commits)
local t1 = os.clock()

-- JSON output (authors are plain ASCII, but escape quotes and backslashes anyway)
local function jstr(s)
  return '"' .. s:gsub('[\\"]', '\\%0') .. '"'
end
local out = {}
for i, r in ipairs(answer) do
  out[i] = string.format(
    '{"author":%s,"commits":%d,"additions":%d,"deletions":%d,"avg_files":%.17g,"latest":%d}',
    jstr(r.author), r.commits, r.additions, r.deletions, r.avg_files, r.latest)
end
io.write("[", table.concat(out, ","), "]\n")
io.stderr:write(string.format("time_ms: %.3f\n", (t1 - t0) * 1000))
