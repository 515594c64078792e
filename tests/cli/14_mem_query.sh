# 14_mem_query.sh: `quarry mem query` and the memory_query tool end to end on a store
# built with `quarry mem import`: selection, search with spread, -p stages, implicit all,
# formats, --explain, exit codes and error lines (plain and JSON), the STORE.spectral
# cache file (written, reused, rebuilt when corrupt), and the tool through `quarry tool`
# and the Lisp with QUARRY_MEMORY.
. "$(dirname "$0")/lib.sh"

S="$TMP/m.db"
NOW="--now 2026-03-10T00:00:00Z"
printf '%s\n' \
  '{"key":"btree","type":"semantic","weight":0.9,"created":"2026-01-05T09:00:00Z","tags":["db"],"content":"B-trees keep keys sorted; linking leaf pages speeds range scans."}' \
  '{"key":"lsm-tree","type":"semantic","weight":0.6,"created":"2026-01-20T09:00:00Z","tags":["db"],"content":"An LSM tree buffers writes in memory and merges sorted runs."}' \
  '{"key":"fts5","type":"semantic","weight":0.3,"created":"2026-03-09T09:00:00Z","provenance":"agent:reader","content":"SQLite full-text search; the porter tokenizer stems words."}' \
  '{"key":"journal#2026-03-01","type":"episodic-daily","weight":0.4,"created":"2026-03-01T18:00:00Z","tags":["todo"],"content":"Linked the btree notes to the LSM notes."}' \
  '{"key":"journal#2026-03-08","type":"episodic-session","weight":0.7,"created":"2026-03-08T18:00:00Z","content":"Tried spreading activation over the search notes."}' \
  '{"kind":"edge","source":"journal#2026-03-01","target":"btree","strength":0.9}' \
  '{"kind":"edge","source":"journal#2026-03-01","target":"lsm-tree","strength":0.6}' \
  '{"kind":"edge","source":"btree","target":"lsm-tree","strength":0.8}' \
  '{"kind":"edge","source":"journal#2026-03-08","target":"fts5","strength":0.7}' \
  '{"kind":"visit","node":"btree","agent":"linker","time":"2026-03-07T12:00:00Z"}' \
  '{"kind":"visit","node":"journal#2026-03-01","agent":"linker","time":"2026-02-01T12:00:00Z"}' \
  > "$TMP/in.jsonl"
expect_rc "import" 0 "$Q" mem import "$TMP/in.jsonl" --store "$S"

keys() { "$Q" mem query "$@" --store "$S" $NOW --format json | grep -o '"key":"[^"]*"' | cut -d'"' -f4 | tr '\n' ' ' | sed 's/ $//'; }

expect_out "all, creation order" "btree lsm-tree fts5 journal#2026-03-01 journal#2026-03-08" keys 'all'
expect_out "type family" "journal#2026-03-08 journal#2026-03-01" keys 'all | type:episodic | sort:weight'
expect_out "implicit all" "journal#2026-03-01 journal#2026-03-08" keys 'type:episodic'
expect_out "negation" "btree lsm-tree fts5" keys '!type:episodic'
expect_out "not-visited with a window" "fts5 journal#2026-03-01 journal#2026-03-08 lsm-tree" keys 'all | not-visited:linker,7d | sort:key'
expect_out "visited" "btree journal#2026-03-01" keys 'visited:linker'
expect_out "age" "fts5 journal#2026-03-08" keys 'age:<3d'
expect_out "provenance glob" "fts5" keys 'provenance:agent:*'
expect_out "tag" "btree lsm-tree" keys 'tag:db'
expect_out "key glob" "journal#2026-03-01 journal#2026-03-08" keys 'key:journal#*'
expect_out "degree" "journal#2026-03-08 fts5" keys 'degree:1 | sort:key,desc'
expect_out "sort and limit" "btree journal#2026-03-08" keys 'all | sort:weight | limit:2'
expect_out "bare words are match terms (stemmed)" "btree journal#2026-03-01" keys 'linking | sort:key'
expect_out "spread from a match" "btree journal#2026-03-01 lsm-tree" keys 'linking | spread,max_hops=1'
expect_out "-p stages" "journal#2026-03-01" keys -p all -p 'tag:todo'
expect_out "words then -p" "btree journal#2026-03-01 lsm-tree" keys linking -p 'spread,max_hops=1' -p 'sort:key'
expect_out "quoted phrase" "fts5" keys 'match:"porter tokenizer"'
expect_out "communities" "btree journal#2026-03-01 lsm-tree" keys 'community:0 | sort:key'
expect_out "priority" "lsm-tree journal#2026-03-01" keys 'all | not-visited:linker,7d | sort:priority | limit:2'

# rows and formats
expect_out "json row" '[{"key":"fts5","type":"semantic","weight":0.3,"score":1.0,"modified":"2026-03-09T09:00:00Z","degree":1}]' \
  "$Q" mem query 'key:fts5' --store "$S" --format json
expect_out "edn row" '[{:key "fts5", :type "semantic", :weight 0.3, :score 1.0, :modified "2026-03-09T09:00:00Z", :degree 1}]' \
  "$Q" mem query 'key:fts5' --store "$S" --format edn
expect_out "table" "key   type      weight  score  modified              degree
fts5  semantic     0.3    1.0  2026-03-09T09:00:00Z       1" "$Q" mem query 'key:fts5' --store "$S" --format table
expect_out "empty result" "[]" "$Q" mem query 'key:nothing' --store "$S" --format json
expect_out "empty table" "(no nodes)" "$Q" mem query 'key:nothing' --store "$S" --format table

# --explain: every stage with its count on stderr
"$Q" mem query 'type:episodic | limit:1' --store "$S" --explain --format json >/dev/null 2>"$TMP/explain"
expect_out "explain lists the stages" "all (implicit) 5
type:episodic 2
limit:1 1" sh -c "grep -E '^ +[0-9]+  ' '$TMP/explain' | awk '{ c = \$NF == \"ms\" ? \$(NF-2) : \$NF; s = \$2; for (i = 3; i <= NF - 3; i++) s = s \" \" \$i; print s, c }'"
expect_out "explain has a total" "1" sh -c "grep -c '^total ' '$TMP/explain'"

# errors
expect_rc "unknown stage: exit 2" 2 "$Q" mem query 'all | sprad' --store "$S"
expect_err "unknown stage: did you mean" "quarry: invalid pipeline: stage 2 'sprad' at byte 6: unknown stage 'sprad'; did you mean 'spread'?" "$Q" mem query 'all | sprad' --store "$S" --format table
expect_err "JSON error" '{"error":{"kind":"invalid-pipeline","message":"stage 2 '"'"'spread,max_hop=2'"'"' at byte 13: unknown parameter '"'"'max_hop'"'"' of spread; did you mean '"'"'max_hops'"'"'? parameters: max_hops, edge_decay, min_activation","stage":2,"offset":13}}' \
  "$Q" mem query 'all | spread,max_hop=2' --store "$S" --format json
expect_out "one line on stderr" "1" sh -c "'$Q' mem query 'all | sprad' --store '$S' 2>&1 >/dev/null | wc -l"
expect_rc "graph stage first: exit 2" 2 "$Q" mem query 'spread' --store "$S"
expect_err "graph stage first: needs seeds" "needs seeds" "$Q" mem query 'spread' --store "$S"
expect_rc "no pipeline" 2 "$Q" mem query --store "$S"
expect_rc "unknown option" 2 "$Q" mem query all --frob --store "$S"
expect_rc "missing store: exit 1" 1 "$Q" mem query all --store "$TMP/none.db"
expect_err "missing store: message" "no memory store at" "$Q" mem query all --store "$TMP/none.db"
expect_rc "runtime failure: exit 1" 1 "$Q" mem query 'key:btree | manifold' --store "$S"
expect_err "runtime failure names the stage" "stage 2 'manifold'" "$Q" mem query 'key:btree | manifold' --store "$S"
expect_rc "--help" 0 "$Q" mem query --help
expect_out "--stages lists every stage" "22" sh -c "'$Q' mem query --stages | grep -c '^[a-z]'"

# the embedding cache file
rm -f "$S.spectral"
"$Q" mem query 'key:btree | spectral,k=2' --store "$S" --explain --format json >"$TMP/k1" 2>"$TMP/e1"
expect_out "cache: computed first" "1" sh -c "grep -c 'embedding: computed' '$TMP/e1'"
expect_rc "cache: file written" 0 test -s "$S.spectral"
"$Q" mem query 'key:btree | spectral,k=2' --store "$S" --explain --format json >"$TMP/k2" 2>"$TMP/e2"
expect_out "cache: loaded next" "1" sh -c "grep -c 'embedding: loaded from' '$TMP/e2'"
expect_rc "cache: same result" 0 cmp "$TMP/k1" "$TMP/k2"
printf 'garbage' > "$S.spectral"
"$Q" mem query 'key:btree | spectral,k=2' --store "$S" --explain --format json >"$TMP/k3" 2>"$TMP/e3"
expect_out "cache: corrupt file recomputed" "1" sh -c "grep -c 'embedding: computed' '$TMP/e3'"
expect_rc "cache: same result again" 0 cmp "$TMP/k1" "$TMP/k3"
"$Q" mem query 'key:btree | spectral,k=2' --store "$S" --explain --no-cache --format json >/dev/null 2>"$TMP/e4"
expect_out "--no-cache computes" "1" sh -c "grep -c 'embedding: computed' '$TMP/e4'"

# the tool
expect_out "tool: rows with content" '[{:key "journal#2026-03-01", :type "episodic-daily", :weight 0.4, :score 1.0, :modified "2026-03-01T18:00:00Z", :content "Linked the btree notes to the LSM notes."}]' \
  "$Q" tool memory_query --pipeline 'tag:todo' --store "$S" --format edn
expect_out "tool: limit" "2" sh -c "'$Q' tool memory_query --pipeline all --limit 2 --store '$S' --format json | grep -o '\"key\"' | wc -l"
expect_out "tool: QUARRY_MEMORY and the Lisp" '["btree" "lsm-tree"]' \
  env QUARRY_MEMORY="$S" "$Q" lisp -e '(mapv :key (tool/memory_query {:pipeline "tag:db"}))'
expect_rc "tool: bad pipeline exit 2" 2 "$Q" tool memory_query --pipeline 'all | sprad' --store "$S"
expect_err "tool: bad pipeline message" "tool 'memory_query': pipeline: stage 2 'sprad' at byte 6: unknown stage 'sprad'; did you mean 'spread'?" \
  "$Q" tool memory_query --pipeline 'all | sprad' --store "$S"
expect_err "tool: no store" "no memory store: give 'store' or set QUARRY_MEMORY" env -u QUARRY_MEMORY "$Q" tool memory_query --pipeline all
finish
