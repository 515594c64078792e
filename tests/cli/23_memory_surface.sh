# 23_memory_surface.sh: memory as agents write it (issue 12, part 5): times with
# fractional seconds on import, `sort:weight desc` beside `sort:weight,desc`, match:
# scores on the scale of other seeds (so a spread from them reaches linked notes), the
# interference-pairs stage, and the six example agents (examples/agents), the seed's own
# linker form among them (template = "linker.md", placeholders with {{NODES}}).
. "$(dirname "$0")/lib.sh"

S="$TMP/notes.db"
printf '%s\n' \
  '{"key":"btree","type":"semantic","weight":0.8,"created":"2026-10-17T14:37:14.061638+00:00","content":"B-trees keep keys sorted; pages split when full."}' \
  '{"key":"journal#1","type":"episodic-daily","weight":0.3,"created":"2026-10-18T10:00:00.5Z","content":"Linked the btree pages today."}' \
  '{"key":"idea","type":"semantic","weight":0.5,"created":"2026-10-19T10:00:00Z","content":"Cache misses doubled after the split."}' \
  > "$TMP/in.jsonl"
expect_out "import takes fractional seconds" '{"nodes":3,"edges":0,"visits":0}' \
  "$Q" mem import "$TMP/in.jsonl" --store "$S"
expect_out "kept to the second" '"created":"2026-10-17T14:37:14Z"' \
  sh -c "\"$Q\" mem get btree --store \"$S\" --format json | grep -o '\"created\":\"[^\"]*\"'"
printf '%s\n' '{"key":"bad","type":"semantic","created":"2026-10-17T14:37:14.+00:00","content":"x"}' > "$TMP/bad.jsonl"
expect_rc "a fraction without digits is refused" 2 "$Q" mem import "$TMP/bad.jsonl" --store "$TMP/other.db"

keys() { "$Q" mem query "$1" --store "$S" --format json | grep -o '"key":"[^"]*"' | cut -d'"' -f4 | tr '\n' ' '; }
expect_out "sort:weight desc" "btree idea journal#1 " keys 'all | sort:weight desc'
expect_out "sort:weight,desc" "btree idea journal#1 " keys 'all | sort:weight,desc'
expect_out "sort:weight asc" "journal#1 idea btree " keys 'all | sort:weight asc'
expect_rc "sort:weight sideways" 2 "$Q" mem query 'all | sort:weight sideways' --store "$S"

"$Q" mem link btree idea --store "$S" --strength 0.9 >/dev/null
expect_out "match: the best hit scores 1" '"score":1.0' \
  sh -c "\"$Q\" mem query 'match:btree | limit:1' --store \"$S\" --format json | grep -o '\"score\":[0-9.]*'"
expect_out "match: | spread reaches a linked note without the term" "journal#1 btree idea " keys 'match:btree | spread'

# interference-pairs: a and b are linked to the hub alone; c also to d
P="$TMP/pairs.db"
for k in hub a b c d e; do "$Q" mem add $k --store "$P" --type semantic --content "note $k" >/dev/null; done
for k in a b c; do "$Q" mem link hub $k --store "$P" --strength 0.8 >/dev/null; done
"$Q" mem link d e --store "$P" --strength 0.8 >/dev/null
"$Q" mem link c d --store "$P" --strength 0.5 >/dev/null
pkeys() { "$Q" mem query "$1" --store "$P" --format json | grep -o '"key":"[^"]*"' | cut -d'"' -f4 | tr '\n' ' '; }
expect_out "interference-pairs: the pair with the same links" "a b " pkeys 'all | interference-pairs,min_sim=0.9'
expect_out "interference-pairs: a lower threshold adds c" "a b c " pkeys 'all | interference-pairs,min_sim=0.8'
expect_out "interference-pairs: linked nodes are no pair" "" pkeys 'key:hub | interference-pairs'
expect_rc "interference-pairs: a bad parameter" 2 "$Q" mem query 'all | interference-pairs,min_sim=2' --store "$P"

# the example agents: each loads and fills its prompt
for a in replay linker separator transfer rename split; do
  if ! QUARRY_NOW=2026-10-20T00:00:00Z "$Q" mem agent run $a --dry-run --store "$S" --agents "$SRC/examples/agents" >"$TMP/$a.out" 2>"$TMP/$a.err"; then
    echo "FAIL: example agent $a: $(head -c 300 "$TMP/$a.err")"; FAILS=$((FAILS + 1))
  fi
done
expect_out "the seed's linker: template file, {{NODES}} filled" "### node 1 of 1: journal#1" \
  sh -c "grep '^### node' '$TMP/linker.out'"
expect_out "the seed's linker: {{TOPOLOGY}} filled" "1" sh -c "grep -c '^Links among these nodes' '$TMP/linker.out'"
expect_out "the separator is shown the interference pair" "### node 1 of 3: a ### node 2 of 3: b ### node 3 of 3: c " \
  sh -c "\"$Q\" mem agent run separator --dry-run --store '$P' --agents '$SRC/examples/agents' | grep '^### node' | tr '\n' ' '"
# placeholders that disagree with the template are refused
mkdir -p "$TMP/agents"
printf '[query]\npipeline = "all"\n\n[prompt]\ntemplate = "t.md"\nplaceholders = ["NODES", "TOPOLOGY"]\n\n[execution]\nactions = []\n' > "$TMP/agents/x.toml"
printf 'Only {{NODES}} here.\n' > "$TMP/agents/t.md"
expect_err "placeholders must be in the template" "placeholders lists TOPOLOGY, but the template has no {{TOPOLOGY}}" \
  "$Q" mem agent run x --dry-run --store "$S" --agents "$TMP/agents"
finish
