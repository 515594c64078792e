# 12_mem.sh: quarry mem: every subcommand on real store files, its output in the three
# formats, errors and exit codes, help, and export -> import into a fresh store -> export
# giving the same bytes.
. "$(dirname "$0")/lib.sh"

S="$TMP/notes.db"
M() { "$Q" mem "$@" --store "$S"; }

# where the store comes from
unset QUARRY_MEMORY
expect_rc "no store named" 2 "$Q" mem get a
expect_err "no store named: message" "no memory store: give --store FILE or set QUARRY_MEMORY" "$Q" mem get a
expect_rc "read command on a missing file" 1 M get a
expect_err "missing file: message" "no memory store at '$S'" M get a
[ -e "$S" ] && { echo "FAIL: a read command created the store"; FAILS=$((FAILS + 1)); }

# add
expect_out "add" '{"added":"journal#2026-11-20"}' M add 'journal#2026-11-20' --content 'We linked the btree pages.' --type episodic-daily --weight 0.75 --tag btree --tag work
expect_rc "add again" 1 M add 'journal#2026-11-20' --content x
expect_err "add again: hint" "already exists: change it with 'quarry mem update'" M add 'journal#2026-11-20'
expect_rc "bad type" 2 M add k2 --type 'Not A Word'
expect_err "bad type: message" "quarry: usage: type \"Not A Word\" is not valid" M add k2 --type 'Not A Word' --format table
expect_rc "bad weight" 2 M add k2 --weight lots
expect_rc "weight out of range" 2 M add k2 --weight 1.5
expect_rc "two contents" 2 M add k2 --content a --content b
expect_rc "no key" 2 M add
expect_rc "unknown option" 2 M add k2 --colour red
printf 'from stdin\nsecond line\n' > "$TMP/in.md"
expect_out "add from stdin" '{"added":"stdin-note"}' sh -c "'$Q' mem add stdin-note - --store '$S' < '$TMP/in.md'"
expect_out "add from a file (table)" "added 'file-note'" M add file-note --file "$TMP/in.md" --format table
expect_rc "add from a missing file" 1 M add k3 --file "$TMP/nope.md"
expect_out "add plain" '{"added":"semantic-1"}' M add semantic-1 --content 'linking is how notes connect'

# get
M get 'journal#2026-11-20' >"$TMP/get.json" 2>&1
for field in '"key":"journal#2026-11-20"' '"type":"episodic-daily"' '"weight":0.75' \
  '"provenance":"manual"' '"tags":["btree","work"]' '"content":"We linked the btree pages."' \
  '"deleted":null' '"links":[]' '"created":"20'; do
  grep -qF -- "$field" "$TMP/get.json" || { echo "FAIL: get lacks $field"; cat "$TMP/get.json"; FAILS=$((FAILS + 1)); }
done
expect_out "get content from stdin" '"from stdin\nsecond line\n"' sh -c "'$Q' mem get stdin-note --store '$S' | sed 's/.*\"content\":\\(\"[^\"]*\"\\).*/\\1/'"
M get semantic-1 --format edn >"$TMP/get.edn"
grep -qF ':key "semantic-1"' "$TMP/get.edn" || { echo "FAIL: edn get"; cat "$TMP/get.edn"; FAILS=$((FAILS + 1)); }
M get 'journal#2026-11-20' --format table >"$TMP/get.txt"
grep -q '^type: *episodic-daily$' "$TMP/get.txt" && grep -q '^tags: *btree work$' "$TMP/get.txt" &&
  tail -n 1 "$TMP/get.txt" | grep -qx 'We linked the btree pages.' ||
  { echo "FAIL: table get"; cat "$TMP/get.txt"; FAILS=$((FAILS + 1)); }
expect_rc "get missing" 1 M get nope
expect_err "get missing: message" "no node 'nope'" M get nope
expect_rc "get: too many keys" 2 M get a b

# update
expect_out "update" '{"updated":"semantic-1"}' M update semantic-1 --weight 0.25 --tag new --provenance import
M get semantic-1 >"$TMP/u.json"
grep -qF '"weight":0.25' "$TMP/u.json" && grep -qF '"tags":["new"]' "$TMP/u.json" && grep -qF '"provenance":"import"' "$TMP/u.json" ||
  { echo "FAIL: update did not apply"; cat "$TMP/u.json"; FAILS=$((FAILS + 1)); }
expect_out "untag" '{"updated":"semantic-1"}' M update semantic-1 --untag new --content 'changed'
expect_out "untag applied" '"tags":[]' sh -c "'$Q' mem get semantic-1 --store '$S' | grep -o '\"tags\":\[\]'"
expect_rc "untag a tag it lacks" 1 M update semantic-1 --untag never
expect_rc "update nothing" 2 M update semantic-1
expect_rc "update missing" 1 M update nope --weight 0.1

# link / unlink
expect_out "link" '{"linked":"journal#2026-11-20","target":"semantic-1","type":"related","strength":0.5}' M link 'journal#2026-11-20' semantic-1
expect_out "relink" "relinked 'journal#2026-11-20' -> 'semantic-1' (related 0.9)" M link 'journal#2026-11-20' semantic-1 --strength 0.9 --format table
expect_out "link typed" '{"linked":"semantic-1","target":"file-note","type":"cites","strength":1.0}' M link semantic-1 file-note --type cites --strength 1
expect_rc "link to a missing note" 1 M link semantic-1 nope
expect_rc "link to itself" 2 M link semantic-1 semantic-1
expect_rc "strength 0" 2 M link semantic-1 file-note --strength 0
expect_rc "link: one key" 2 M link semantic-1
M get semantic-1 --format table >"$TMP/l.txt"
grep -q '^links: *2$' "$TMP/l.txt" && grep -qF -- "-> file-note (cites 1.0)" "$TMP/l.txt" &&
  grep -qF -- "<- journal#2026-11-20 (related 0.9)" "$TMP/l.txt" ||
  { echo "FAIL: links in get"; cat "$TMP/l.txt"; FAILS=$((FAILS + 1)); }

# delete / restore: links of a deleted note are hidden, not lost
expect_out "delete" '{"deleted":"file-note"}' M delete file-note
expect_rc "get deleted" 1 M get file-note
expect_err "get deleted: hint" "restore it with 'quarry mem restore file-note'" M get file-note
expect_out "get --deleted" '"deleted":"20' sh -c "'$Q' mem get file-note --deleted --store '$S' | grep -o '\"deleted\":\"20'"
expect_out "link hidden" '"links":[{"source":"journal#2026-11-20","target":"semantic-1","type":"related","strength":0.9}]' sh -c "'$Q' mem get semantic-1 --store '$S' | grep -o '\"links\":.*]'"
expect_rc "delete twice" 1 M delete file-note
expect_out "restore" "restored 'file-note'" M restore file-note --format table
expect_rc "restore a live note" 1 M restore file-note
expect_out "link back" '2' sh -c "'$Q' mem get semantic-1 --store '$S' | grep -o '\"source\"' | wc -l | tr -d ' '"
expect_out "unlink" '{"unlinked":"semantic-1","target":"file-note","removed":1}' M unlink semantic-1 file-note
expect_rc "unlink again" 1 M unlink semantic-1 file-note
expect_rc "unlink wrong type" 1 M unlink 'journal#2026-11-20' semantic-1 --type cites

# stats
M stats >"$TMP/stats.json"
grep -qF '"nodes":4,"deleted":0,"types":{"episodic-daily":1,"semantic":3},"edges":1,"hidden_edges":0,"tags":2,"visits":0' "$TMP/stats.json" ||
  { echo "FAIL: stats"; cat "$TMP/stats.json"; FAILS=$((FAILS + 1)); }
M stats --format table | grep -q '^nodes: *4 (0 deleted)$' || { echo "FAIL: stats table"; FAILS=$((FAILS + 1)); }
M delete stdin-note >/dev/null

# export -> import -> export: the same bytes
M export >"$TMP/e1.jsonl"
expect_out "export lines" 5 sh -c "wc -l < '$TMP/e1.jsonl' | tr -d ' '"
grep -q '"kind":"node","key":"stdin-note".*"deleted":"' "$TMP/e1.jsonl" || { echo "FAIL: deleted note not exported"; FAILS=$((FAILS + 1)); }
expect_out "import" '{"nodes":4,"edges":1,"visits":0}' "$Q" mem import "$TMP/e1.jsonl" --store "$TMP/copy.db"
"$Q" mem export --store "$TMP/copy.db" >"$TMP/e2.jsonl"
cmp -s "$TMP/e1.jsonl" "$TMP/e2.jsonl" || { echo "FAIL: export differs after a round trip"; diff "$TMP/e1.jsonl" "$TMP/e2.jsonl"; FAILS=$((FAILS + 1)); }
expect_out "export to a file" "exported 4 nodes, 1 edge, 0 visits" "$Q" mem export "$TMP/e3.jsonl" --store "$TMP/copy.db" --format table
cmp -s "$TMP/e1.jsonl" "$TMP/e3.jsonl" || { echo "FAIL: export FILE differs"; FAILS=$((FAILS + 1)); }
expect_out "import from stdin, env store" "imported 4 nodes, 1 edge, 0 visits" sh -c "QUARRY_MEMORY='$TMP/env.db' '$Q' mem import - --format table < '$TMP/e1.jsonl'"
expect_rc "import into a store that has the keys" 2 "$Q" mem import "$TMP/e1.jsonl" --store "$TMP/copy.db"
expect_err "import conflict: line" "line 1: node 'file-note' already exists" "$Q" mem import "$TMP/e1.jsonl" --store "$TMP/copy.db"
printf '{"key":"ok-1"}\n{"key":"ok-2","weight":7}\n' >"$TMP/bad.jsonl"
expect_rc "bad line" 2 "$Q" mem import "$TMP/bad.jsonl" --store "$TMP/bad.db"
expect_err "bad line: message" "line 2: weight 7 is out of range" "$Q" mem import "$TMP/bad.jsonl" --store "$TMP/bad.db"
expect_out "bad import left nothing" '"nodes":0' sh -c "'$Q' mem stats --store '$TMP/bad.db' | grep -o '\"nodes\":0'"
expect_rc "import missing file" 2 "$Q" mem import "$TMP/nope.jsonl" --store "$TMP/bad.db"
expect_rc "import: no file" 2 "$Q" mem import --store "$TMP/bad.db"

# a file that is not a store is refused and left alone
printf 'not a database at all, just some text that is long enough to look like a header..' >"$TMP/junk.db"
expect_rc "junk file" 1 "$Q" mem get a --store "$TMP/junk.db"
expect_out "junk file untouched" "not a database at all, just some text that is long enough to look like a header.." cat "$TMP/junk.db"
printf 'hello' >"$TMP/notdb.txt"
expect_rc "not SQLite" 1 "$Q" mem stats --store "$TMP/notdb.txt"
expect_err "not SQLite: message" "cannot read memory store '$TMP/notdb.txt': the file is not a SQLite database, so not a memory store; it was left untouched" "$Q" mem stats --store "$TMP/notdb.txt"
expect_out "not SQLite: untouched" "hello" cat "$TMP/notdb.txt"
[ -e "$TMP/notdb.txt-wal" ] && { echo "FAIL: a -wal file next to a text file"; FAILS=$((FAILS + 1)); }
# a foreign SQLite database keeps its journal mode: it is refused before anything is set
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('pragma journal_mode=delete'); c.execute('create table t(x)'); c.commit()" "$TMP/other.db"
cp "$TMP/other.db" "$TMP/other.copy"
expect_rc "foreign database" 1 "$Q" mem stats --store "$TMP/other.db"
expect_err "foreign database: message" "'$TMP/other.db' is not a quarry memory store" "$Q" mem add k --store "$TMP/other.db"
expect_out "foreign database: still in delete mode" "delete" python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('pragma journal_mode').fetchone()[0])" "$TMP/other.db"
cmp -s "$TMP/other.db" "$TMP/other.copy" || { echo "FAIL: foreign database rewritten"; FAILS=$((FAILS + 1)); }

# options before the subcommand; formats; JSON errors
expect_out "store before the command" '{"deleted":"semantic-1"}' "$Q" mem --store "$S" delete semantic-1
expect_err "json error" '{"error":{"kind":"error","message":"no node '"'"'nope'"'"'' M get nope --format json
expect_rc "bad format" 2 M stats --format yaml

# the snapshot file: written by the first query, reused unchanged by the next, replaced
# after a write; a damaged one is ignored (same answer) and rewritten
SS="$TMP/snap.db"
"$Q" mem add s1 --store "$SS" --weight 0.5 >/dev/null
"$Q" mem add s2 --store "$SS" --weight 0.75 >/dev/null
"$Q" mem link s1 s2 --store "$SS" >/dev/null
[ -e "$SS.snapshot" ] && { echo "FAIL: a write made the snapshot file"; FAILS=$((FAILS + 1)); }
"$Q" mem query 'all | sort:weight' --store "$SS" --format json >"$TMP/q1.json"
[ -s "$SS.snapshot" ] || { echo "FAIL: no snapshot file after a query"; FAILS=$((FAILS + 1)); }
id1=$(ls -i --time-style=full-iso -l "$SS.snapshot")
expect_out "query from the snapshot file" "$(cat "$TMP/q1.json")" "$Q" mem query 'all | sort:weight' --store "$SS" --format json
expect_out "snapshot file reused, not rewritten" "$id1" ls -i --time-style=full-iso -l "$SS.snapshot"
"$Q" mem add s3 --store "$SS" --weight 1 >/dev/null
expect_out "after a write: the new note" '"s3"' sh -c "'$Q' mem query 'all | sort:weight | limit:1' --store '$SS' --format json | grep -o '\"s3\"'"
[ "$(ls -i --time-style=full-iso -l "$SS.snapshot")" != "$id1" ] || { echo "FAIL: snapshot file not replaced after a write"; FAILS=$((FAILS + 1)); }
"$Q" mem query 'all | sort:weight' --store "$SS" --format json >"$TMP/q2.json"
printf 'QRMEMSNP garbage' >"$SS.snapshot"
expect_out "damaged snapshot file: same answer" "$(cat "$TMP/q2.json")" "$Q" mem query 'all | sort:weight' --store "$SS" --format json
expect_out "damaged snapshot file: rewritten" "QRMEMSNP" head -c 8 "$SS.snapshot"
[ "$(wc -c <"$SS.snapshot")" -gt 128 ] || { echo "FAIL: damaged snapshot file not rewritten"; FAILS=$((FAILS + 1)); }
ls "$TMP"/snap.db.snapshot.tmp.* >/dev/null 2>&1 && { echo "FAIL: temporary snapshot file left"; FAILS=$((FAILS + 1)); }
# weights are the store's doubles, from SQL and from the file: 0.50000001 is above 0.5
"$Q" mem add w-half --store "$TMP/w.db" --weight 0.5 >/dev/null
"$Q" mem add w-above --store "$TMP/w.db" --weight 0.50000001 >/dev/null
expect_out "weight above 0.5 (from SQL)" '"key":"w-above"' sh -c "'$Q' mem query 'all | weight:>0.5' --store '$TMP/w.db' --format json | grep -o '\"key\":\"[^\"]*\"'"
[ -s "$TMP/w.db.snapshot" ] || { echo "FAIL: no snapshot file for w.db"; FAILS=$((FAILS + 1)); }
expect_out "weight above 0.5 (from the file)" '"key":"w-above"' sh -c "'$Q' mem query 'all | weight:>0.5' --store '$TMP/w.db' --format json | grep -o '\"key\":\"[^\"]*\"'"

# help tells the truth: every command in the overview has help with its usage line
expect_rc "mem --help" 0 "$Q" mem --help
for sub in add get update delete restore link unlink import export stats; do
  "$Q" mem --help | grep -q "^  $sub " || { echo "FAIL: overview lacks $sub"; FAILS=$((FAILS + 1)); }
  "$Q" mem "$sub" --help >"$TMP/h.txt" 2>&1; rc=$?
  [ $rc = 0 ] && grep -q "^usage: quarry mem $sub" "$TMP/h.txt" || { echo "FAIL: mem $sub --help"; cat "$TMP/h.txt"; FAILS=$((FAILS + 1)); }
done
expect_out "help via quarry help" "usage: quarry mem COMMAND [ARGS] [--store FILE] [--format edn|json|table]" sh -c "'$Q' help mem | head -n 1"
expect_rc "no subcommand" 2 "$Q" mem
expect_rc "unknown subcommand" 2 "$Q" mem frobnicate
expect_err "unknown subcommand: message" "unknown command 'frobnicate'" "$Q" mem frobnicate

finish
