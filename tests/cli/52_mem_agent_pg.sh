#!/bin/sh
# 52_mem_agent_pg.sh: scheduled memory agents on a shared PostgreSQL store (issue 26), on a
# real PostgreSQL 15 (pg_lib.sh) with the scripted model server (tests/llm/model_server.py).
# The agents' run state is in the database (due_agents), never in a file; two daemons on
# one store run each due agent exactly once (one model request each, one set of visits);
# a daemon killed with -9 while it holds a lease blocks the agent until the lease ends,
# then another daemon takes it over; a run that outlives its lease while another daemon
# takes the agent over keeps nothing. Leases and due times are quarry's clock, pinned by
# QUARRY_NOW: a lease "expires" because a later process's clock is past it, so nothing
# here sleeps to wait for an expiry and nothing depends on the machine's speed (waits are
# on conditions, with a generous bound).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh --test)"; exit 1; }
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" TZ=UTC LC_ALL=C
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM \
  QUARRY_LLM_TIMEOUT_MS QUARRY_MEMORY QUARRY_MEMORY_AGENTS QUARRY_DATABASE_URL
export QUARRY_LLM_RETRY_BASE_MS=5 QUARRY_LLM_MAX_RETRIES=0
mkdir -p "$HOME" "$TMP/work"
cd "$TMP/work" # the working directory: nothing may be written here
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pg_start
T=1773144000 # 2026-03-10T12:00:00Z
export QUARRY_NOW=$T
PIDS=
trap 'for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; pg_stop; llm_unserve; rm -rf "$TMP"' EXIT

requests() { wc -l <"$TMP/log.jsonl" | tr -d ' '; }
# wait_for DESC CMD...: until CMD succeeds, at most 60 s (a bound, never an expectation)
wait_for() {
  desc=$1; shift
  i=0
  while ! "$@" >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 600 ] || { fail "$desc: not within 60 s"; return 1; }
    sleep 0.1
  done
}
notes() {
  cat <<'EOF'
{"key":"j1","type":"episodic","weight":0.5,"content":"alpha: we split the btree pages"}
{"key":"j2","type":"episodic","weight":0.5,"content":"beta: page cache misses doubled"}
EOF
}
# agent DIR NAME: a daily agent that weighs the episodic notes it has not visited this week
agent() {
  cat >"$1/$2.toml" <<EOF
[query]
pipeline = "all | type:episodic | not-visited:$2,7d"
[prompt]
template = """
Agent $2-marker. Weigh these:
{{nodes}}
"""
[execution]
actions = ["weight"]
schedule = "daily"
EOF
}
reply() { printf '{"text": "```json\\n[{\\"action\\": \\"weight\\", \\"key\\": \\"j1\\", \\"weight\\": %s}]\\n```"%s}' "$1" "$2"; }

# ---- two daemons, four due agents: each runs once ----
D=$(pg_createdb race)
"$Q" mem import --store "$D" - <<EOF >/dev/null || fail "import"
$(notes)
EOF
mkdir -p "$TMP/ag"
for a in a1 a2 a3 a4; do agent "$TMP/ag" $a; done
# one answer per agent (by its marker), each held 300 ms so that the daemons overlap; a
# fifth request would find the script exhausted (HTTP 500: a failed run, logged)
llm_script "$TMP/s.json" "$(reply 0.61 ', "match": "a1-marker", "delay_ms": 300')" \
  "$(reply 0.62 ', "match": "a2-marker", "delay_ms": 300')" \
  "$(reply 0.63 ', "match": "a3-marker", "delay_ms": 300')" \
  "$(reply 0.64 ', "match": "a4-marker", "delay_ms": 300')"
llm_serve "$TMP/s.json"
expect_out "list before: never run, due" "a1 never yes
a2 never yes
a3 never yes
a4 never yes" sh -c "'$Q' mem agent list --store '$D' --agents '$TMP/ag' --format table | awk 'NR > 1 {print \$1, \$3, \$4}'"
"$Q" mem daemon --store "$D" --agents "$TMP/ag" --interval 1 --log "$TMP/d1.log" 2>"$TMP/d1.err" &
P1=$!
"$Q" mem daemon --store "$D" --agents "$TMP/ag" --interval 1 --log "$TMP/d2.log" 2>"$TMP/d2.err" &
P2=$!
PIDS="$P1 $P2"
all_ran() { [ "$(pg_sql race "SELECT count(*) FROM due_agents WHERE last_ok > 0")" = 4 ]; }
wait_for "two daemons: every agent ran" all_ran
kill -TERM "$P1" "$P2"
wait "$P1"; R1=$?
wait "$P2"; R2=$?
PIDS=
[ "$R1$R2" = 00 ] || fail "two daemons: exit statuses $R1 $R2: $(cat "$TMP/d1.err" "$TMP/d2.err")"
expect_out "two daemons: one model request per agent" "4" requests
expect_out "two daemons: each agent asked once" "a1 a2 a3 a4" python3 -c "
import json, re
L = [json.loads(l) for l in open('$TMP/log.jsonl')]
print(' '.join(sorted(re.search(r'(a[0-9])-marker', json.dumps(r['body'])).group(1) for r in L)))"
expect_out "two daemons: runs recorded once each, leases ended" "a1 1 1773144000 - -
a2 1 1773144000 - -
a3 1 1773144000 - -
a4 1 1773144000 - -" pg_sql race "SELECT agent || ' ' || runs || ' ' || last_ok || ' ' || coalesce(holder, '-') || ' ' || coalesce(error, '-') FROM due_agents ORDER BY agent"
expect_out "two daemons: next due a day later" "1773230400" pg_sql race "SELECT DISTINCT due FROM due_agents"
expect_out "two daemons: one agent-run line per agent in both logs" "a1 a2 a3 a4" sh -c "cat '$TMP/d1.log' '$TMP/d2.log' | grep '\"event\":\"agent-run\"' | sed 's/.*\"agent\":\"\\([a-z0-9]*\\)\".*/\\1/' | sort | tr '\n' ' ' | sed 's/ \$//'"
expect_out "two daemons: no error" "0" sh -c "cat '$TMP/d1.log' '$TMP/d2.log' | grep -c '\"event\":\"error\"'"
expect_out "two daemons: two visits per agent" "a1 2
a2 2
a3 2
a4 2" pg_sql race "SELECT agent || ' ' || count(*) FROM mem_visits GROUP BY agent ORDER BY agent"
grep -q '"holder":"[^"]* pid [0-9]*","lease":900' "$TMP/d1.log" || fail "daemon: the start line names its holder and lease"
expect_out "list after: last run from the database" "a1 2026-03-10T12:00:00Z no, at 2026-03-11T12:00:00Z
a2 2026-03-10T12:00:00Z no, at 2026-03-11T12:00:00Z
a3 2026-03-10T12:00:00Z no, at 2026-03-11T12:00:00Z
a4 2026-03-10T12:00:00Z no, at 2026-03-11T12:00:00Z" sh -c "'$Q' mem agent list --store '$D' --agents '$TMP/ag' --format table | awk 'NR > 1 {print \$1, \$3, \$4, \$5, \$6}'"
expect_out "no file in the working directory" "" ls -A "$TMP/work"
ls "$TMP/ag" | grep -v '\.toml$' | grep -q . && fail "a file beside the agents: $(ls "$TMP/ag")"
# a day later the agents are due again, but their queries have nothing new to show
expect_rc "a day later: daemon --once" 0 env QUARRY_NOW=$((T + 86400)) "$Q" mem daemon --once --store "$D" --agents "$TMP/ag" --log "$TMP/d3.log"
expect_out "a day later: no request (nothing unvisited)" "4" requests

# ---- kill -9 a daemon holding a lease: the agent waits for the lease, then is taken over ----
K=$(pg_createdb killed)
"$Q" mem import --store "$K" - <<EOF >/dev/null || fail "import"
$(notes)
EOF
mkdir -p "$TMP/ak"
agent "$TMP/ak" slow
# the first request is never answered in time (the daemon is killed meanwhile); the second
# is the taker's
llm_script "$TMP/k.json" "$(reply 0.11 ', "delay_ms": 120000')" "$(reply 0.22 '')"
llm_serve "$TMP/k.json"
"$Q" mem daemon --store "$K" --agents "$TMP/ak" --interval 1 --lease 30 --log "$TMP/k1.log" 2>"$TMP/k1.err" &
PA=$!
PIDS=$PA
has_request() { [ "$(requests)" = 1 ]; }
wait_for "killed: the first daemon's model call" has_request
expect_out "killed: the lease is held by the first daemon until T+30" "pid $PA $((T + 30))" \
  pg_sql killed "SELECT regexp_replace(holder, '^.* pid', 'pid') || ' ' || lease_until FROM due_agents WHERE agent = 'slow'"
kill -9 "$PA"
wait "$PA" 2>/dev/null
PIDS=
# ten seconds later by the clock: the lease holds; another daemon skips the agent, a manual
# run is refused
expect_rc "killed: +10 s: daemon --once exits 0" 0 env QUARRY_NOW=$((T + 10)) "$Q" mem daemon --once --store "$K" --agents "$TMP/ak" --log "$TMP/k2.log"
grep -q "\"event\":\"agent-skip\",\"agent\":\"slow\",\"reason\":\"agent 'slow' is running in another process ([^\"]* pid $PA, its lease ends in 20 s)\"" "$TMP/k2.log" ||
  { fail "killed: +10 s: the skip line"; cat "$TMP/k2.log"; }
expect_rc "killed: +10 s: agent run refused" 1 env QUARRY_NOW=$((T + 10)) "$Q" mem agent run slow --store "$K" --agents "$TMP/ak"
expect_err "killed: +10 s: says who holds it" "agent 'slow' is running in another process (" env QUARRY_NOW=$((T + 10)) "$Q" mem agent run slow --store "$K" --agents "$TMP/ak"
expect_out "killed: +10 s: no second request" "1" requests
# past the lease: a daemon takes the agent over and runs it once
env QUARRY_NOW=$((T + 31)) "$Q" mem daemon --store "$K" --agents "$TMP/ak" --interval 1 --log "$TMP/k4.log" 2>"$TMP/k4.err" &
PB=$!
PIDS=$PB
taken() { grep -q '"event":"agent-run","agent":"slow"' "$TMP/k4.log"; }
wait_for "killed: another daemon takes the agent over" taken
kill -TERM "$PB"; wait "$PB"; PIDS=
expect_out "killed: two requests in all" "2" requests
expect_out "killed: recorded once, by the taker, lease ended" "1 $((T + 31)) -" \
  pg_sql killed "SELECT runs || ' ' || last_ok || ' ' || coalesce(holder, '-') FROM due_agents WHERE agent = 'slow'"
expect_out "killed: the taker's reply applied" "0.22" pg_sql killed "SELECT weight FROM mem_nodes WHERE key = 'j1'"
expect_out "killed: visits once" "2" pg_sql killed "SELECT count(*) FROM mem_visits WHERE agent = 'slow'"

# ---- a run that outlives its lease keeps nothing ----
# The first daemon's request, while it waits, has the model server run a second daemon
# whose clock is past the lease (5 s): it takes the agent over and runs it; then the first
# gets its answer, and finds its lease gone: its actions and visits are rolled back.
L=$(pg_createdb lost)
"$Q" mem import --store "$L" - <<EOF >/dev/null || fail "import"
$(notes)
EOF
mkdir -p "$TMP/al"
agent "$TMP/al" slow
# (the server starts before its port is known: the taker reads it)
cat >"$TMP/taker.sh" <<EOF
QUARRY_LLM_URL="http://127.0.0.1:\$(cat '$TMP/port')/v1" QUARRY_NOW=$((T + 6)) \\
  exec '$Q' mem daemon --once --store '$L' --agents '$TMP/al' --log '$TMP/l2.log' 2>'$TMP/l2.err'
EOF
llm_script "$TMP/l.json" "$(reply 0.11 ", \"run\": [\"sh\", \"$TMP/taker.sh\"]")" "$(reply 0.22 '')"
llm_serve "$TMP/l.json"
expect_rc "lost lease: the first daemon's round fails" 1 "$Q" mem daemon --once --store "$L" --agents "$TMP/al" --lease 5 --log "$TMP/l1.log"
grep -q '"event":"agent-run","agent":"slow"' "$TMP/l2.log" || { fail "lost lease: the taker did not run it"; cat "$TMP/l2.log"; }
grep -q "its lease ended before the run did and another process claimed it; nothing of this run was kept" "$TMP/l1.log" ||
  { fail "lost lease: the first daemon's error"; cat "$TMP/l1.log"; }
expect_out "lost lease: two requests" "2" requests
expect_out "lost lease: the taker's reply only" "0.22" pg_sql lost "SELECT weight FROM mem_nodes WHERE key = 'j1'"
expect_out "lost lease: one run's visits" "2" pg_sql lost "SELECT count(*) FROM mem_visits WHERE agent = 'slow'"
expect_out "lost lease: recorded once, by the taker" "1 $((T + 6)) -" \
  pg_sql lost "SELECT runs || ' ' || last_ok || ' ' || coalesce(error, '-') FROM due_agents WHERE agent = 'slow'"

# ---- usage ----
expect_rc "bad --lease: exit 2" 2 "$Q" mem daemon --once --store "$D" --agents "$TMP/ag" --lease 0
expect_err "bad --lease: says what it takes" "bad --lease '2d': expected 1s to 24h" "$Q" mem agent run a1 --store "$D" --agents "$TMP/ag" --lease 2d
expect_out "no file in the working directory at the end" "" ls -A "$TMP/work"
finish
