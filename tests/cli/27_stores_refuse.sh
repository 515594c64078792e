#!/bin/sh
# 27_stores_refuse.sh: what a program may name, and what quarry refuses (issue 11, part 3):
# a program reaches only the memory store the host was given; a damaged store refuses
# writes and `mem export --salvage` gets the readable rows out; settings files are read
# only as regular files and their errors quote none of their text; strings with NUL are
# refused, not cut.
. "$(dirname "$0")/lib.sh"
export QUARRY_NOW=2026-03-10T12:00:00Z
unset QUARRY_MEMORY QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_MEMORY_AGENTS
export XDG_CONFIG_HOME="$TMP/cfg"
fail() { echo "FAIL: $1"; FAILS=$((FAILS + 1)); }

# ---- a program names only the configured store ----
S="$TMP/s.db"; O="$TMP/o.db"
"$Q" mem add a1 --content "alpha note" --store "$S" >/dev/null || fail "add to s.db"
"$Q" mem add b1 --content "beta note" --store "$O" >/dev/null || fail "add to o.db"
rm -f "$O.snapshot" "$O.spectral"
mkdir "$TMP/dir"; echo "plain text" >"$TMP/text"
expect_out "lisp --store: the configured store" "1" \
  "$Q" lisp --store "$S" -e '(count (tool/memory_query {:pipeline "all"}))'
expect_out "lisp: naming the configured store works" "1" \
  "$Q" lisp --store "$S" -e "(count (tool/memory_query {:pipeline \"all\" :store \"$S\"}))"
expect_out "lisp: QUARRY_MEMORY is the configured store too" "1" \
  env QUARRY_MEMORY="$S" "$Q" lisp -e "(count (tool/memory_query {:pipeline \"all\" :store \"$S\"}))"
REFUSED="'store' may only name the memory store this session was given (--store or QUARRY_MEMORY); leave 'store' out to use it"
for name in /etc/passwd "$TMP/missing.db" "$TMP/dir" "$TMP/text" "$O"; do
  expect_rc "lisp: store '$name' refused" 1 \
    "$Q" lisp --store "$S" -e "(tool/memory_query {:pipeline \"all\" :store \"$name\"})"
  expect_err "lisp: store '$name': the one message" "$REFUSED" \
    "$Q" lisp --store "$S" -e "(tool/memory_query {:pipeline \"all\" :store \"$name\"})"
done
expect_err "lisp without a store: refused the same" "$REFUSED" \
  "$Q" lisp -e "(tool/memory_query {:pipeline \"all\" :store \"$O\"})"
[ ! -e "$O.snapshot" ] && [ ! -e "$O.spectral" ] || fail "a refused store got files written beside it"
expect_err "query: the same rule" "$REFUSED" \
  "$Q" query --store "$S" "{:fetch [{:tool :memory_query :as :m :params {:pipeline \"all\" :store \"$O\"}}] :return {:findings :m}}"
# a person at the terminal names any store
expect_out "quarry tool: a person names any store" "b1" \
  sh -c "'$Q' tool memory_query --store '$O' --pipeline all --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0][\"key\"])'"

# MCP: tools/call and run_lisp follow the same rule; --store configures the store
mcp_msgs() {
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$@"
}
mcp_msgs "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"memory_query\",\"arguments\":{\"pipeline\":\"all\",\"store\":\"$O\"}}}" \
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"run_lisp\",\"arguments\":{\"program\":\"(tool/memory_query {:pipeline \\\"all\\\" :store \\\"/etc/passwd\\\"})\"}}}" \
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory_query","arguments":{"pipeline":"all"}}}' \
  '{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"debug\u0000x"}}' \
  '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"run_lisp\u0000x","arguments":{"program":"1"}}}' \
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_query","arguments":{"pipeline":"all\u0000x"}}}' \
  '{"jsonrpc":"2.0","id":8,"method":"ping"}' >"$TMP/mcp.in"
"$Q" mcp --store "$S" <"$TMP/mcp.in" >"$TMP/mcp.out" 2>"$TMP/mcp.err"
python3 - "$TMP/mcp.out" "$REFUSED" <<'PY' || fail "mcp: store and NUL refusals"
import json, sys
out = {m.get("id"): m for m in map(json.loads, open(sys.argv[1]))}
refused = sys.argv[2]
def text(i):
    return out[i]["result"]["content"][0]["text"]
assert out[2]["result"]["isError"] and refused in text(2), out[2]
assert out[3]["result"]["isError"] and refused in text(3), out[3]
assert not out[4]["result"].get("isError") and "alpha note" in text(4), out[4]
nul = "holds a NUL character"
for i in (5, 6, 7):
    assert out[i]["error"]["code"] == -32602 and nul in out[i]["error"]["message"], out[i]
assert out[8]["result"] == {}, out[8]   # the server still answers
PY

# ---- a damaged store refuses writes; salvage gets the readable rows out ----
D="$TMP/damaged.db"
python3 - "$TMP/notes.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(300):
        f.write(json.dumps({"kind": "node", "key": "n%03d" % i, "type": "semantic",
                            "tags": ["t%d" % (i % 3)],
                            "content": "note %d %s" % (i, "words " * 30)}) + "\n")
    for i in range(299):
        f.write(json.dumps({"kind": "edge", "source": "n%03d" % i, "target": "n%03d" % (i + 1),
                            "type": "related", "strength": 0.5}) + "\n")
    for i in range(0, 300, 10):
        f.write(json.dumps({"kind": "visit", "node": "n%03d" % i, "agent": "linker",
                            "time": "2026-03-01T00:00:00Z", "outcome": "seen"}) + "\n")
PY
expect_rc "import the notes" 0 "$Q" mem import "$TMP/notes.jsonl" --store "$D"
"$Q" mem export --store "$D" >"$TMP/orig.jsonl" || fail "export before the damage"
# the third leaf page of the nodes table, and how many notes it holds
set -- $(python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(*c.execute(\"SELECT pageno, ncell FROM dbstat WHERE name = 'nodes' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 2\").fetchone())
" "$D")
PAGE=$1; CELLS=$2
[ -n "$PAGE" ] && [ "$CELLS" -gt 0 ] || fail "no leaf page of nodes found"
PSIZE=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA page_size').fetchone()[0])" "$D")
head -c "$PSIZE" /dev/zero | tr '\0' 'Z' | dd of="$D" bs="$PSIZE" seek=$((PAGE - 1)) count=1 conv=notrunc 2>/dev/null
cp "$D" "$TMP/damaged.copy"
expect_rc "mem add on a damaged store: refused" 1 "$Q" mem add fresh --content x --store "$D"
expect_err "mem add: says damaged and how out" "is damaged (" "$Q" mem add fresh --content x --store "$D"
expect_err "mem add: names the salvage" "quarry mem export --salvage" "$Q" mem add fresh --content x --store "$D"
expect_rc "mem link on a damaged store: refused" 1 "$Q" mem link n290 n291 --store "$D"
expect_err "mem link: says damaged" "is damaged (" "$Q" mem link n290 n291 --store "$D"
expect_rc "mem import on a damaged store: refused" 1 "$Q" mem import "$TMP/notes.jsonl" --store "$D"
cmp -s "$D" "$TMP/damaged.copy" || fail "a refused write changed the damaged file"
expect_rc "plain export fails on the damaged store" 1 "$Q" mem export --store "$D"
"$Q" mem export --salvage --store "$D" --format table >"$TMP/rescued.jsonl" 2>"$TMP/salvage.err"; rc=$?
[ "$rc" = 0 ] || { fail "salvage: exit $rc"; cat "$TMP/salvage.err"; }
grep -qF "lost: $CELLS note rows unreadable" "$TMP/salvage.err" || { fail "salvage: report"; cat "$TMP/salvage.err"; }
cmp -s "$D" "$TMP/damaged.copy" || fail "salvage changed the damaged file"
# every salvaged line is a line of the export before the damage, byte for byte
[ -z "$(grep -vxFf "$TMP/orig.jsonl" "$TMP/rescued.jsonl")" ] || fail "salvage: lines not in the original"
NODES=$(grep -c '"kind":"node"' "$TMP/rescued.jsonl")
[ "$NODES" = $((300 - CELLS)) ] || fail "salvage: $NODES notes, want $((300 - CELLS))"
# what was lost is exactly the notes on the page, their links and their visits
python3 - "$TMP/orig.jsonl" "$TMP/rescued.jsonl" <<'PY' || fail "salvage: lost more than the damaged page"
import json, sys
orig = [json.loads(l) for l in open(sys.argv[1])]
got = set(open(sys.argv[2]).read().splitlines())
kept = {json.loads(l)["key"] for l in got if '"kind":"node"' in l}
for o, line in zip(orig, open(sys.argv[1]).read().splitlines()):
    need = {"node": lambda: o["key"] in kept,
            "edge": lambda: o["source"] in kept and o["target"] in kept,
            "visit": lambda: o["node"] in kept}[o["kind"]]()
    assert (line in got) == need, line
PY
expect_rc "the rescue imports into a new store" 0 "$Q" mem import "$TMP/rescued.jsonl" --store "$TMP/new.db"
expect_rc "the new store takes writes" 0 "$Q" mem add fresh --content x --store "$TMP/new.db"
"$Q" mem export --salvage "$TMP/rescued2.jsonl" --store "$D" --format json >"$TMP/salvage.json" || fail "salvage to FILE"
cmp -s "$TMP/rescued.jsonl" "$TMP/rescued2.jsonl" || fail "salvage to FILE differs from stdout"
grep -qF "\"node_rows_lost\":$CELLS" "$TMP/salvage.json" || fail "salvage --format json: node_rows_lost"
# an undamaged store salvages to exactly its export
"$Q" mem export --salvage --store "$TMP/new.db" >"$TMP/s1.jsonl" 2>/dev/null
"$Q" mem export --store "$TMP/new.db" >"$TMP/s2.jsonl"
cmp -s "$TMP/s1.jsonl" "$TMP/s2.jsonl" || fail "salvage of a sound store differs from its export"

# ---- the check before a write is skipped only while the file is as quarry left it ----
# (QUARRY_DEBUG=store says which happened; the marker lives in the state directory)
export XDG_STATE_HOME="$TMP/state"
C="$TMP/check.db"
RAN="integrity check ran: ok"; SKIPPED="integrity check skipped"
dbg() { QUARRY_DEBUG=store "$Q" "$@"; }
expect_rc "check: import creates the store" 0 "$Q" mem import "$TMP/notes.jsonl" --store "$C"
expect_err "check: a store as quarry left it is not checked" "$SKIPPED" dbg mem add k1 --content x --store "$C"
expect_err "check: again after a read" "$SKIPPED" \
  sh -c "'$Q' mem query all --store '$C' >/dev/null && QUARRY_DEBUG=store '$Q' mem add k2 --content x --store '$C'"
[ -z "$(ls "$TMP"/check.db.* 2>/dev/null | grep -v 'snapshot$\|spectral$')" ] || fail "check: a file beside the store"
[ "$(ls "$XDG_STATE_HOME/quarry/store-checks" | wc -l)" = 1 ] || fail "check: one marker in the state directory"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE nodes SET weight = 0.25 WHERE key = 'n001'\"); c.commit()" "$C"
expect_err "check: a change by another SQLite writer is checked" "$RAN" dbg mem add k3 --content x --store "$C"
expect_err "check: then skipped again" "$SKIPPED" dbg mem link k1 k3 --store "$C"
env -u XDG_STATE_HOME -u HOME "$Q" mem add k4 --content x --store "$C" >/dev/null 2>&1 || fail "check: add without a state directory"
QUARRY_DEBUG=store env -u XDG_STATE_HOME -u HOME "$Q" mem add k5 --content x --store "$C" >/dev/null 2>"$TMP/nostate.err"
grep -qF "$RAN" "$TMP/nostate.err" || fail "check: without a state directory the check runs"
expect_err "check: after a write made without the marker, checked" "$RAN" dbg mem add k6 --content x --store "$C"
# bytes over a page, the modification time set back: the change time moved, so refused
set -- $(python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(*c.execute(\"SELECT pageno FROM dbstat WHERE name = 'nodes' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 1\").fetchone())
print(c.execute('PRAGMA page_size').fetchone()[0])
" "$C")
touch -r "$C" "$TMP/mtime.ref"
head -c "$2" /dev/zero | tr '\0' 'Z' | dd of="$C" bs="$2" seek=$(($1 - 1)) count=1 conv=notrunc 2>/dev/null
touch -r "$TMP/mtime.ref" "$C"
[ "$(stat -c %Y.%y "$C")" = "$(stat -c %Y.%y "$TMP/mtime.ref")" ] || fail "check: mtime not set back"
expect_rc "check: damage with the mtime set back: refused" 1 dbg mem add k7 --content x --store "$C"
expect_err "check: says damaged" "is damaged (" "$Q" mem add k7 --content x --store "$C"
# a sound store cut short: refused, left as it was
T="$TMP/trunc.db"
expect_rc "check: import for truncation" 0 "$Q" mem import "$TMP/notes.jsonl" --store "$T"
expect_err "check: sound before the cut" "$SKIPPED" dbg mem add t1 --content x --store "$T"
truncate -s $(( $(stat -c %s "$T") / 2 )) "$T"
cp "$T" "$TMP/trunc.copy"
expect_rc "check: a truncated store refuses writes" 1 "$Q" mem add t2 --content x --store "$T"
cmp -s "$T" "$TMP/trunc.copy" || fail "check: the truncated file was written"

# ---- settings files: regular files only, errors quote none of their text ----
git init -q "$TMP/repo"
mkdir -p "$TMP/cfg/quarry"
printf 'root:$y$j9T$SECRETHASH:19000:0:99999:7:::\n' >"$TMP/shadow"
ln -s "$TMP/shadow" "$TMP/cfg/quarry/config.toml"
expect_rc "config.toml as a symlink: refused (exit 2)" 2 "$Q" ask "what changed" --repo "$TMP/repo"
expect_err "config.toml as a symlink: says so" "is a symbolic link, which is not followed" \
  "$Q" ask "what changed" --repo "$TMP/repo"
grep -q "SECRET\|root" "$TMP/stderr" && fail "the symlinked file's text is in the message"
rm "$TMP/cfg/quarry/config.toml"
cp "$TMP/shadow" "$TMP/cfg/quarry/config.toml"
expect_err "config.toml that is not TOML: position only" "config.toml:1:5: expected '=' after key '...', found ':'" \
  "$Q" ask "what changed" --repo "$TMP/repo"
grep -q "SECRET\|root" "$TMP/stderr" && fail "the bad file's text is in the message"
rm "$TMP/cfg/quarry/config.toml"
mkfifo "$TMP/cfg/quarry/config.toml"
expect_rc "config.toml as a FIFO: refused at once (no hang)" 2 timeout 20 "$Q" ask "what changed" --repo "$TMP/repo"
expect_err "config.toml as a FIFO: says so" "is not a regular file" timeout 20 "$Q" ask "what changed" --repo "$TMP/repo"
rm "$TMP/cfg/quarry/config.toml"
mkfifo "$TMP/repo/.quarry.toml"
expect_rc ".quarry.toml as a FIFO: refused at once" 2 timeout 20 "$Q" ask "what changed" --repo "$TMP/repo"
rm "$TMP/repo/.quarry.toml"
# agent files
mkdir -p "$TMP/agents"
mkfifo "$TMP/agents/pipe.toml"
ln -s "$TMP/shadow" "$TMP/agents/link.toml"
expect_rc "agent file as a FIFO: refused at once" 2 timeout 20 "$Q" mem agent run pipe --dry-run --agents "$TMP/agents" --store "$S"
expect_err "agent file as a FIFO: says so" "is not a regular file" timeout 20 "$Q" mem agent run pipe --dry-run --agents "$TMP/agents" --store "$S"
expect_err "agent file as a symlink: refused" "is a symbolic link, which is not followed" \
  "$Q" mem agent run link --dry-run --agents "$TMP/agents" --store "$S"
grep -q "SECRET\|root" "$TMP/stderr" && fail "the linked agent file's text is in the message"
rm "$TMP/agents/link.toml"
cp "$TMP/shadow" "$TMP/agents/bad.toml"
expect_err "agent file that is not TOML: position only" "expected '=' after key '...'" \
  "$Q" mem agent run bad --dry-run --agents "$TMP/agents" --store "$S"
grep -q "SECRET\|root" "$TMP/stderr" && fail "the bad agent file's text is in the message"

finish
