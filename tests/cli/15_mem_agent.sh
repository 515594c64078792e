# 15_mem_agent.sh: memory agents as TOML files (quarry mem agent, quarry mem daemon) against
# a real store file and the scripted model server (tests/llm/model_server.py, real HTTP on
# 127.0.0.1). One run makes exactly one call whose request holds the filled prompt; the
# reply's actions are applied and the nodes shown get visits, so the next run's
# not-visited: query leaves them out; an invalid reply applies nothing and says why;
# --dry-run sends nothing; no model is exit 2; the daemon runs due agents only, picks up a
# new file while running, and stops cleanly on SIGTERM.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
  echo "FAIL: python3 is needed (scripts/deps.sh --test installs it)"
  exit 1
fi

export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" TZ=UTC LC_ALL=C
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM \
  QUARRY_LLM_MAX_RETRIES QUARRY_LLM_TIMEOUT_MS QUARRY_MEMORY QUARRY_MEMORY_AGENTS
mkdir -p "$HOME"
export QUARRY_LLM_RETRY_BASE_MS=5 QUARRY_LLM_MAX_RETRIES=0
cd "$TMP"

DAEMON_PID=
serve() { llm_serve "$1"; }
unserve() { llm_unserve; }
trap '[ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null; unserve; rm -rf "$TMP"' EXIT

# script OUT REPLYFILE...: a server script answering with each file's text in turn
script() { llm_script "$@"; }
requests() { wc -l < "$TMP/log.jsonl" | tr -d ' '; }
# pylog EXPR: over the logged requests (L)
pylog() {
  python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[2])]; print($1)" "$1" "$TMP/log.jsonl" 2>&1 | tail -1
}
# pyq EXPR FILE: over the JSON in FILE (d)
pyq() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[2])); print($1)" "$1" "$2" 2>&1 | tail -1
}
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# ---- a store and its agents (agents/ beside the store: the default directory) ----
mkdir -p "$TMP/mem/agents"
S="$TMP/mem/notes.db"
A="$TMP/mem/agents"
M() { "$Q" mem "$@" --store "$S"; }
cat >"$TMP/notes.jsonl" <<'EOF'
{"key":"j1","type":"episodic","weight":0.5,"content":"alpha: we split the btree pages"}
{"key":"j2","type":"episodic","weight":0.5,"content":"beta: page cache misses doubled"}
{"key":"s1","type":"semantic","weight":0.5,"content":"gamma: a btree keeps keys sorted"}
EOF
expect_rc "import the notes" 0 M import "$TMP/notes.jsonl"

cat >"$A/linker.toml" <<'EOF'
# links episodic notes nobody has linked this week
[query]
pipeline = "all | type:episodic | not-visited:linker,7d | limit:20"

[prompt]
template = """
You are {{agent}}. Link the notes below that belong together.
{{nodes}}
{{topology}}
"""

[execution]
actions = ["link-add", "weight"]
schedule = "daily"
EOF
cat >"$A/writer.toml" <<'EOF'
[query]
pipeline = "all | type:semantic"
[prompt]
template_file = "writer.md"
[execution]
actions = ["write"]
schedule = "on-demand"
EOF
printf 'Write one new semantic note from these:\n{{nodes}}\n' >"$A/writer.md"

# ---- no model ----
expect_rc "run with no model: exit 2" 2 M agent run linker
expect_err "run with no model: says how to configure one" "no model is configured: set QUARRY_LLM_URL" M agent run linker
expect_err "run with no model: mentions --dry-run" "or see the prompt with --dry-run" M agent run linker

# ---- --dry-run: the filled prompt, no request ----
printf 'unused\n' >"$TMP/unused.txt"
script "$TMP/s0.json" "$TMP/unused.txt"
serve "$TMP/s0.json"
M agent run linker --dry-run >"$TMP/dry.txt" 2>"$TMP/dry.err"
expect_out "dry run: exit 0" "0" echo $?
grep -q "^You are linker. Link the notes below" "$TMP/dry.txt" || fail "dry run: no filled prompt"; 
grep -q "^alpha: we split the btree pages$" "$TMP/dry.txt" || fail "dry run: lacks j1's content"
grep -q "^### node 2 of 2: j2$" "$TMP/dry.txt" || fail "dry run: lacks j2"
grep -q "gamma" "$TMP/dry.txt" && fail "dry run: shows a node the query excludes"
expect_out "dry run: no request" "0" requests
M agent run linker --dry-run --format json >"$TMP/dry.json"
expect_out "dry run json: shown" "['j1', 'j2']" pyq 'd["shown"]' "$TMP/dry.json"
expect_out "dry run json: system names the actions" "True" pyq '"link-add" in d["system"] and "write" not in d["system"].split("Allowed actions:")[1]' "$TMP/dry.json"
expect_out "dry run: nothing visited" "0" sh -c "'$Q' mem export --store '$S' | grep -c '\"kind\":\"visit\"'"

# ---- a run: one call, the prompt in it, the actions applied, visits recorded ----
cat >"$TMP/r1.txt" <<'EOF'
Both notes are about btree pages.
```json
[{"action": "link-add", "source": "j1", "target": "j2", "strength": 0.8, "type": "follows"},
 {"action": "weight", "key": "j2", "weight": 0.9}]
```
EOF
script "$TMP/s1.json" "$TMP/r1.txt"
serve "$TMP/s1.json"
M agent run linker --format json >"$TMP/run1.json" 2>"$TMP/run1.err"
expect_out "run: exit 0" "0" echo $?
expect_out "run: exactly one request" "1" requests
expect_out "run: the prompt holds j1's content" "True" pylog '"alpha: we split the btree pages" in L[0]["body"]["messages"][-1]["content"]'
expect_out "run: the prompt holds j2's content" "True" pylog '"beta: page cache misses doubled" in L[0]["body"]["messages"][-1]["content"]'
expect_out "run: the system text states the contract" "True" pylog '"```json" in json.dumps(L[0]["body"]["messages"][0])'
expect_out "run: model sent" "test-model" pylog 'L[0]["body"]["model"]'
expect_out "run: applied" "['link-add', 'weight']" pyq '[a["action"] for a in d["applied"]]' "$TMP/run1.json"
expect_out "run: visits" "2" pyq 'd["visits"]' "$TMP/run1.json"
M get j2 >"$TMP/j2.json"
expect_out "weight applied" "0.9" pyq 'd["weight"]' "$TMP/j2.json"
expect_out "link applied" "[('j1', 'j2', 'follows', 0.8)]" pyq '[(l["source"], l["target"], l["type"], l["strength"]) for l in d["links"]]' "$TMP/j2.json"
M export >"$TMP/export1.jsonl"
expect_out "visits recorded for the nodes shown" "j1 linker ok
j2 linker ok" python3 -c "
import json
for l in open('$TMP/export1.jsonl'):
    v = json.loads(l)
    if v['kind'] == 'visit': print(v['node'], v['agent'], v['outcome'])"
[ -f "$S.agents.json" ] || fail "no state file beside the store"

# the second run: the visited nodes are left out, so there is nothing to do and no call
M agent run linker --dry-run --format json >"$TMP/dry2.json"
expect_out "second run: query excludes visited nodes" "0" pyq 'd["selected"]' "$TMP/dry2.json"
expect_out "second run: nothing to do" "agent 'linker': nothing to do: its query returned no nodes" M agent run linker --format table
expect_out "second run: no request" "1" requests

# ---- an invalid reply: exit 1, nothing applied, every problem said ----
cat >"$TMP/r2.txt" <<'EOF'
```json
[{"action": "write", "key": "s2", "content": "btrees split pages", "type": "semantic"},
 {"action": "link-add", "source": "s1", "target": "j1", "strength": 0.5},
 {"action": "write", "key": "s1", "content": "again", "type": "semantic"}]
```
EOF
script "$TMP/s2.json" "$TMP/r2.txt" "$TMP/r2.txt"
serve "$TMP/s2.json"
M export >"$TMP/before.jsonl"
M agent run writer --format table >"$TMP/bad.out" 2>"$TMP/bad.err"
expect_out "invalid reply: exit 1" "1" echo $?
expect_out "invalid reply: one request" "1" requests
expect_out "invalid reply: nothing on stdout" "" cat "$TMP/bad.out"
expect_out "invalid reply: the prompt came from template_file" "True" pylog '"Write one new semantic note from these:" in L[0]["body"]["messages"][-1]["content"]'
grep -qF "agent 'writer': the reply has 2 problems; nothing was applied" "$TMP/bad.err" || fail "invalid reply: no summary"
grep -qF "action 2 (link-add): this agent may not link-add (its file allows: write)" "$TMP/bad.err" || fail "invalid reply: link-add not reported"
grep -qF "action 3 (write) 'key': 's1' already exists" "$TMP/bad.err" || fail "invalid reply: existing key not reported"
M export >"$TMP/after.jsonl"
cmp -s "$TMP/before.jsonl" "$TMP/after.jsonl" || fail "invalid reply: the store changed"
expect_rc "invalid reply: s2 not written" 1 M get s2
M agent run writer --format json >/dev/null 2>"$TMP/bad.json" || true
expect_out "invalid reply: json problems" "[1, 2]" pyq '[p["index"] for p in d["error"]["problems"]]' "$TMP/bad.json"

# ---- list ----
M agent list --format json >"$TMP/list.json"
expect_out "list: names" "['linker', 'writer']" pyq '[a["name"] for a in d]' "$TMP/list.json"
expect_out "list: linker ran and is not due" "True False" pyq 'd[0]["last_run"] is not None, d[0]["due"]' "$TMP/list.json"
expect_out "list: writer is on-demand" "on-demand False" pyq 'd[1]["schedule"], d[1]["due"]' "$TMP/list.json"
expect_out "list: writer's failure is kept" "True" pyq '"invalid action" in d[1]["last_error"]' "$TMP/list.json"
expect_out "list: --agents elsewhere" "[]" sh -c "mkdir -p '$TMP/empty' && '$Q' mem agent list --store '$S' --agents '$TMP/empty' --format json"
expect_out "list: QUARRY_MEMORY_AGENTS" "[]" env QUARRY_MEMORY_AGENTS="$TMP/empty" "$Q" mem agent list --store "$S" --format json

# ---- usage errors ----
expect_rc "run: unknown agent" 2 M agent run nosuch
expect_err "run: unknown agent message" "no agent 'nosuch'" M agent run nosuch
expect_rc "run: bad name" 2 M agent run Bad_Name
expect_rc "agent: no verb" 2 M agent
printf '[query]\npipeline = "all"\n[prompt]\ntemplate = "{{nodes}}"\n[execution]\nactions = ["weight"]\nshedule = "daily"\n' >"$TMP/typo.toml"
mkdir -p "$TMP/typo" && cp "$TMP/typo.toml" "$TMP/typo/typo.toml"
expect_rc "run: bad agent file exit 2" 2 M agent run typo --agents "$TMP/typo" --dry-run
expect_err "run: bad agent file message" "/typo/typo.toml:7: unknown key [execution] shedule; did you mean 'schedule'?" M agent run typo --agents "$TMP/typo" --dry-run

# ---- daemon --once: due agents run, on-demand ones and fresh ones do not ----
cat >"$A/tagger.toml" <<'EOF'
[query]
pipeline = "all | type:semantic"
[prompt]
template = "Weigh these: {{nodes}}"
[execution]
actions = ["weight"]
schedule = "hourly"
EOF
printf '[query]\npipeline = "all"\n' >"$A/broken.toml"
cat >"$TMP/r3.txt" <<'EOF'
```json
[{"action": "weight", "key": "s1", "weight": 0.7}]
```
EOF
script "$TMP/s3.json" "$TMP/r3.txt"
serve "$TMP/s3.json"
M daemon --once --log "$TMP/once.log" 2>"$TMP/once.err"
expect_out "daemon --once: exit 0" "0" echo $?
expect_out "daemon --once: one request (tagger only)" "1" requests
expect_out "daemon --once: the request was tagger's" "True" pylog '"Weigh these:" in L[0]["body"]["messages"][-1]["content"]'
expect_out "daemon --once: events" "start agent-load agent-load agent-load agent-run stop" python3 -c "
import json
ev = [json.loads(l) for l in open('$TMP/once.log')]
print(' '.join(e['event'] for e in ev if e['event'] != 'error'))"
expect_out "daemon --once: the run's line" "tagger 1 1 1" python3 -c "
import json
for l in open('$TMP/once.log'):
    e = json.loads(l)
    if e['event'] == 'agent-run': print(e['agent'], e['nodes'], e['applied'], e['weight'])"
expect_out "daemon --once: the broken file is logged, not fatal" "broken" python3 -c "
import json
for l in open('$TMP/once.log'):
    e = json.loads(l)
    if e['event'] == 'error': print(e['agent'])"
M get s1 >"$TMP/s1.json"
expect_out "daemon --once: weight applied" "0.7" pyq 'd["weight"]' "$TMP/s1.json"
M daemon --once --log "$TMP/once2.log" 2>/dev/null
expect_out "daemon --once again: nothing due, no request" "1" requests
rm -f "$A/broken.toml"

# ---- the daemon in the background: a new file is picked up; SIGTERM stops it ----
cat >"$TMP/r4.txt" <<'EOF'
```json
[]
```
EOF
script "$TMP/s4.json" "$TMP/r4.txt"
serve "$TMP/s4.json"
"$Q" mem daemon --store "$S" --interval 1 --log "$TMP/bg.log" 2>"$TMP/bg.err" &
DAEMON_PID=$!
i=0
while ! grep -q '"event":"start"' "$TMP/bg.log" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
cat >"$A/late.toml" <<'EOF'
[query]
pipeline = "all | type:episodic | limit:5"
[prompt]
template = "Late agent: {{nodes}}"
[execution]
actions = ["link-add"]
schedule = "daily"
EOF
i=0
while ! grep -q '"event":"agent-run","agent":"late"' "$TMP/bg.log" 2>/dev/null && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
grep -q '"event":"agent-load","agent":"late"' "$TMP/bg.log" || fail "daemon: the new file was not loaded"
grep -q '"event":"agent-run","agent":"late"' "$TMP/bg.log" || { fail "daemon: the new agent did not run"; cat "$TMP/bg.log"; }
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID"
expect_out "daemon: SIGTERM exits 0" "0" echo $?
DAEMON_PID=
expect_out "daemon: the stop line" "SIGTERM" python3 -c "
import json
ev = [json.loads(l) for l in open('$TMP/bg.log')]
print(ev[-1]['reason'] if ev[-1]['event'] == 'stop' else ev[-1])"
expect_out "daemon: one request" "1" requests
expect_rc "daemon: the store is intact" 0 M stats
expect_out "daemon: late's visits are in the store" "2" sh -c "'$Q' mem export --store '$S' | grep -c '\"agent\":\"late\"'"

# ---- untrusted agent files: the prompt is bounded, template_file stays in the directory ----
mkdir -p "$TMP/evil/sub"
printf 'SECRET-TEXT {{nodes}}\n' >"$TMP/secret.md"
evil() { # evil NAME TEMPLATE-LINE: an agent file in $TMP/evil
  printf '[query]\npipeline = "all"\n[prompt]\n%s\n[execution]\nactions = []\n' "$2" >"$TMP/evil/$1.toml"
}
E() { "$Q" mem agent run "$1" --dry-run --store "$S" --agents "$TMP/evil"; }
evil amp 'template = """
{{nodes}}
{{nodes}}
"""'
expect_rc "a template using {{nodes}} twice: exit 2" 2 E amp
expect_err "a template using {{nodes}} twice: file:line" "/evil/amp.toml:6: {{nodes}} is used twice in the template (the first 1 line up)" E amp
evil abs "template_file = \"$TMP/secret.md\""
evil up 'template_file = "../secret.md"'
ln -s "$TMP/secret.md" "$TMP/evil/link.md"
evil link 'template_file = "link.md"'
mkfifo "$TMP/evil/fifo.md"
evil fifo 'template_file = "fifo.md"'
for n in abs up link fifo; do
  E "$n" >"$TMP/evil.out" 2>"$TMP/evil.err"
  expect_out "template_file $n: exit 2" "2" echo $?
  grep -q "/evil/$n.toml:4: template_file '" "$TMP/evil.err" || { fail "template_file $n: no file:line error"; cat "$TMP/evil.err"; }
  grep -q "SECRET-TEXT" "$TMP/evil.out" "$TMP/evil.err" && fail "template_file $n: the file outside was read"
done
E abs 2>&1 | grep -q "must be a path relative to the agent file's directory, without '..'" || fail "template_file absolute: message"
E up 2>&1 | grep -q "must be a path relative to the agent file's directory, without '..'" || fail "template_file ../: message"
E link 2>&1 | grep -q "is or passes through a symbolic link" || fail "template_file symlink: message"
E fifo 2>&1 | grep -q "is not a regular file" || fail "template_file fifo: message"
printf 'in sub: {{nodes}}\n' >"$TMP/evil/sub/t.md"
evil insub 'template_file = "sub/t.md"'
expect_out "template_file in a subdirectory: read" "in sub: ### node 1 of 3: j1" sh -c "'$Q' mem agent run insub --dry-run --store '$S' --agents '$TMP/evil' | head -1"

# ---- one run of an agent at a time; one daemon per store ----
# fresh DIR: a store with the notes and an agent 'slow', due now
fresh() {
  mkdir -p "$1/agents"
  "$Q" mem import "$TMP/notes.jsonl" --store "$1/notes.db" >/dev/null || fail "fresh: import"
  cat >"$1/agents/slow.toml" <<'EOF'
[query]
pipeline = "all | type:episodic | not-visited:slow,7d"
[prompt]
template = "Slow: {{nodes}}"
[execution]
actions = ["link-add"]
schedule = "daily"
EOF
}
cat >"$TMP/r5.txt" <<'EOF'
```json
[{"action": "link-add", "source": "j1", "target": "j2", "strength": 0.6, "type": "slow"}]
```
EOF
# slow SCRIPT MS: a script whose every step is that reply after MS milliseconds
slow() {
  python3 - "$1" "$2" "$TMP/r5.txt" <<'EOF'
import json, sys
t = open(sys.argv[3]).read()
json.dump({"responses": [{"text": t, "delay_ms": int(sys.argv[2])}] * 3}, open(sys.argv[1], "w"))
EOF
}
# wait_requests N: until the model server has received N requests
wait_requests() {
  i=0
  while [ "$(requests)" -lt "$1" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
}

# two `daemon --once` started together: the agent is run once, one model call
fresh "$TMP/m2"
slow "$TMP/s5.json" 1500
serve "$TMP/s5.json"
"$Q" mem daemon --once --store "$TMP/m2/notes.db" --log "$TMP/m2/d1.log" 2>"$TMP/m2/d1.err" &
P1=$!
"$Q" mem daemon --once --store "$TMP/m2/notes.db" --log "$TMP/m2/d2.log" 2>"$TMP/m2/d2.err" &
P2=$!
wait $P1; R1=$?
wait $P2; R2=$?
expect_out "two daemons at once: one model call" "1" requests
expect_out "two daemons at once: the link is there once" "1" sh -c "'$Q' mem export --store '$TMP/m2/notes.db' | grep -c '\"type\":\"slow\"'"
case "$R1$R2" in
  00) ;; # the second started after the first had finished: nothing was due
  01|10) grep -qh "a memory daemon is already running on the store" "$TMP/m2/d1.err" "$TMP/m2/d2.err" || fail "two daemons at once: no refusal message" ;;
  *) fail "two daemons at once: exit statuses $R1 $R2" ;;
esac

# a daemon in the middle of a run (a slow model): a second daemon refuses to start, a
# manual run of the same agent fails at once; then SIGTERM lets the run finish and commit
fresh "$TMP/m3"
slow "$TMP/s6.json" 3000
serve "$TMP/s6.json"
"$Q" mem daemon --store "$TMP/m3/notes.db" --interval 1 --log "$TMP/m3/bg.log" 2>"$TMP/m3/bg.err" &
DAEMON_PID=$!
wait_requests 1
expect_out "busy: the daemon's call is in progress" "1" requests
"$Q" mem daemon --once --store "$TMP/m3/notes.db" >/dev/null 2>"$TMP/m3/second.err"
expect_out "second daemon: exit 1" "1" echo $?
grep -qF "a memory daemon is already running on the store '$TMP/m3/notes.db' (pid $DAEMON_PID); stop it first" "$TMP/m3/second.err" || { fail "second daemon: message"; cat "$TMP/m3/second.err"; }
"$Q" mem agent run slow --store "$TMP/m3/notes.db" >/dev/null 2>"$TMP/m3/manual.err"
expect_out "manual run of a running agent: exit 1" "1" echo $?
grep -qF "agent 'slow' is running in another process (pid $DAEMON_PID); wait for that run to finish" "$TMP/m3/manual.err" || { fail "manual run of a running agent: message"; cat "$TMP/m3/manual.err"; }
expect_out "busy: no second model call" "1" requests
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID"
expect_out "SIGTERM during a run: exit 0" "0" echo $?
DAEMON_PID=
expect_out "SIGTERM during a run: the run finished, then the stop line" "agent-run SIGTERM" python3 -c "
import json
ev = [json.loads(l) for l in open('$TMP/m3/bg.log')]
print(ev[-2]['event'], ev[-1]['reason'] if ev[-1]['event'] == 'stop' else ev[-1])"
expect_out "SIGTERM during a run: the link is committed" "1" sh -c "'$Q' mem export --store '$TMP/m3/notes.db' | grep -c '\"type\":\"slow\"'"
expect_out "SIGTERM during a run: the visits are committed" "2" sh -c "'$Q' mem export --store '$TMP/m3/notes.db' | grep -c '\"agent\":\"slow\"'"
expect_out "SIGTERM during a run: the state is recorded" "True" pyq 'd["agents"]["slow"]["last_ok"] > 0' "$TMP/m3/notes.db.agents.json"
# with the daemon gone, the lock is free again (nothing to do: its nodes were visited)
expect_out "after the daemon: the agent runs" "agent 'slow': nothing to do: its query returned no nodes" "$Q" mem agent run slow --store "$TMP/m3/notes.db" --format table

# ---- the daemon's usage errors ----
expect_rc "daemon: no model" 2 env -u QUARRY_LLM_URL "$Q" mem daemon --once --store "$S"
expect_rc "daemon: missing agent directory" 2 M daemon --once --agents "$TMP/nope"
expect_rc "daemon: bad interval" 2 M daemon --interval 0

unserve
finish
