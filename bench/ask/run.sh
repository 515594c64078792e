#!/usr/bin/env bash
# run.sh -- what `quarry ask` costs: time for the questions tier 1 answers without a
# model (against git answering the same question, in the same run), and, for the tiers
# that call a model, how many calls and how many prompt bytes each question spends,
# measured on the requests themselves as the scripted model server receives them.
#
# Usage: bench/ask/run.sh [QUARRY_BINARY] [--repo DIR] [--previous BINARY | --build-previous REF]
#                         [--sixteen]
#   QUARRY_BINARY  defaults to build/quarry under the repository root.
#   --repo DIR     the repository parts 1 and 2 ask about (default: this project's own).
#   --previous BIN a build of the previous release: its calls and prompt bytes are
#                  measured in the same run and the ratios printed against them. Without
#                  it, the ratios are to the figures recorded in bench/ask/previous.tsv
#                  (which names the release they were measured on).
#   --build-previous REF  builds REF of this repository (e.g. main) in a temporary
#                  directory and uses it as --previous (a few minutes on two cores).
#   --sixteen      part 3 only.
#
# Part 3 replays issue 25's sixteen questions (bench/ask/sixteen.tsv) on a fixture made
# by bench/ask/fixture.sh, with QUARRY_NOW pinned: the previous release with the replies
# it needed (an intent and a Compiler call, or a plan, where its DSL could not say the
# question), this binary with one query per question, both through the scripted model
# server (the OpenAI wire format, as a real model is reached). It prints each question's
# calls and prompt tokens (characters / 4, the server's own count; no tokenizer here),
# the totals of each set against issue 25's targets, and each role's system prompt size.
# A scripted model replays what it is given: it shows what the prompts cost and that
# one-call programs exist and run, not that a real model would write them.
#
# Part 1 times each tier-1 question as a fresh process (best of BENCH_RUNS, default 10)
# next to the git command that answers it. Part 2 replays seed 000's three walkthroughs
# (a query: 1 call; an intent: 2; the two-step plan: 5) against tests/llm/model_server.py
# with the replies in bench/ask/replies/, and prints per question: calls, prompt bytes
# (the stable prefix that providers cache, and the variable part), reply bytes. Tokens
# are not counted here (that needs the model's tokenizer); bytes/4 is printed as a rough
# estimate and labelled so.
#
# Exit status: 0 (this reports, it does not gate); 1 when a command fails; 2 on a usage
# error.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
Q="$root/build/quarry"
REPO="$root"
PREV_Q=
PREV_REF=
SIXTEEN_ONLY=
while [ $# -gt 0 ]; do
  case $1 in
    --repo) REPO=$2; shift 2 ;;
    --previous) PREV_Q=$2; shift 2 ;;
    --build-previous) PREV_REF=$2; shift 2 ;;
    --sixteen) SIXTEEN_ONLY=1; shift ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) Q=$1; shift ;;
  esac
done
[ -x "$Q" ] || { echo "run.sh: no quarry binary at $Q (run make first)" >&2; exit 2; }
Q=$(cd "$(dirname "$Q")" && pwd)/$(basename "$Q")
[ -z "$PREV_Q" ] || PREV_Q=$(cd "$(dirname "$PREV_Q")" && pwd)/$(basename "$PREV_Q")
[ -z "$PREV_Q" ] || [ -x "$PREV_Q" ] || { echo "run.sh: no quarry binary at $PREV_Q" >&2; exit 2; }
command -v python3 >/dev/null || { echo "run.sh: python3 is needed" >&2; exit 2; }
RUNS=${BENCH_RUNS:-10}
TMP=$(mktemp -d)
SERVER=
trap '[ -n "$SERVER" ] && kill $SERVER 2>/dev/null; rm -rf "$TMP"' EXIT
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config"
mkdir -p "$HOME"
if [ -n "$PREV_REF" ]; then
  echo "== building $PREV_REF as the previous release (in $TMP/prev)"
  mkdir -p "$TMP/prev/src"
  git -C "$root" archive "$PREV_REF" | tar -x -C "$TMP/prev/src" ||
    { echo "run.sh: cannot read $PREV_REF" >&2; exit 2; }
  (cmake -S "$TMP/prev/src" -B "$TMP/prev/build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build "$TMP/prev/build" -j2 --target quarry >/dev/null) ||
    { echo "run.sh: the build of $PREV_REF failed" >&2; exit 1; }
  PREV_Q="$TMP/prev/build/quarry"
fi

# best NAME CMD...: the best wall time of RUNS runs, in ms
best() {
  local b=999999999 t0 t1 d
  for _ in $(seq "$RUNS"); do
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "run.sh: failed: $*" >&2; exit 1; }
    t1=$(date +%s%N)
    d=$(( (t1 - t0) / 1000 ))
    [ $d -lt $b ] && b=$d
  done
  awk -v us="$b" 'BEGIN { printf "%.1f", us / 1000 }'
}

if [ -z "$SIXTEEN_ONLY" ]; then
echo "== tier 1: no model call (best of $RUNS fresh processes; repository $REPO)"
printf '%-44s %10s %10s %8s\n' "question" "quarry ms" "git ms" "ratio"
row() { # row QUESTION -- GIT ARGS...
  local q=$1; shift 2
  local a b
  # the index is built on first use; a warm index is the normal state
  (cd "$REPO" && "$Q" ask "$q" --format json >/dev/null 2>&1)
  a=$(best sh -c "cd '$REPO' && '$Q' ask \"$q\" --format json")
  b=$(best git -C "$REPO" "$@")
  printf '%-44s %10s %10s %7sx\n' "$q" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')"
}
row "commits from last week" -- log --since="1 week ago" --numstat --no-renames --format=%H%x09%an%x09%s
row "who contributed most this month" -- shortlog -sne --since="$(date +%Y-%m-01)" HEAD
row "most changed files" -- log --numstat --no-renames --format=
row "largest commits this year" -- log --since="$(date +%Y-01-01)" --numstat --no-renames --format=%H
echo "(ratio: git's time over quarry's; above 1 means quarry is faster. git prints raw"
echo " rows; quarry also ranks, counts and formats them. File ranking from git needs a"
echo " further sort over its output, not timed here.)"

echo
echo "== tiers 2-4: calls and prompt bytes per question (scripted model server)"
serve() {
  rm -f "$TMP/port" "$TMP/log.jsonl"
  python3 "$root/tests/llm/model_server.py" --script "$1" --log "$TMP/log.jsonl" \
    --port-file "$TMP/port" 2>/dev/null &
  SERVER=$!
  for _ in $(seq 200); do [ -s "$TMP/port" ] && break; sleep 0.05; done
  export QUARRY_LLM_URL="http://127.0.0.1:$(cat "$TMP/port")/v1" QUARRY_LLM_MODEL=bench
}
unserve() { kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; SERVER=; }
script() {
  local out=$1; shift
  python3 - "$out" "$@" <<'EOF'
import json, sys
json.dump({"responses": [{"text": open(a).read()} for a in sys.argv[2:]]}, open(sys.argv[1], "w"))
EOF
}
R="$here/replies"
# measure BINARY TIER QUESTION REPLY...: one line of figures for the question asked of
# BINARY: tier, calls, system bytes, message bytes, cacheable bytes, reply bytes
measure() {
  local bin=$1 tier=$2 q=$3; shift 3
  script "$TMP/s.json" "$@"
  serve "$TMP/s.json"
  (cd "$REPO" && "$bin" ask "$q" --no-router --format json >"$TMP/out.json" 2>"$TMP/err") ||
    { echo "run.sh: ask failed ($bin): $(cat "$TMP/err")" >&2; exit 1; }
  unserve
  # earlier prompts of the same binary in this run: what a cache warm from the questions
  # asked before could serve
  python3 - "$TMP/log.jsonl" "$TMP/seen.$(echo "$bin" | cksum | cut -d' ' -f1)" "$tier" "$@" <<'EOF'
import json, os, sys
L = [json.loads(l) for l in open(sys.argv[1])]
prefix = sum(len(r["body"]["messages"][0]["content"]) for r in L)
var = sum(len(m["content"]) for r in L for m in r["body"]["messages"][1:])
reply = sum(len(open(f).read()) for f in sys.argv[4:])
# what a prefix cache can serve: for each request, the longest prefix of its prompt that
# an earlier request sent (system text, then the messages): of the same question, and of
# any question asked before in this run (a warm cache)
texts = ["\x00".join(m["content"] for m in r["body"]["messages"]) for r in L]
seen = json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else []
def lcp(a, b):
    return len(os.path.commonprefix([a, b]))
cached = sum(max([lcp(t, texts[j]) for j in range(i)] or [0]) for i, t in enumerate(texts))
warm = sum(max([lcp(t, u) for u in seen + texts[:i]] or [0]) for i, t in enumerate(texts))
json.dump(seen + texts, open(sys.argv[2], "w"))
print("%s\t%d\t%d\t%d\t%d\t%d\t%d" % (sys.argv[3], len(L), prefix, var, cached, reply, warm))
EOF
}
if [ -n "$PREV_Q" ]; then
  PREV_FROM="$PREV_Q, measured in this run"
else
  PREV_FROM="bench/ask/previous.tsv, $(sed -n 's/^# release: //p' "$here/previous.tsv")"
fi
printf '%-8s %-40s %5s %9s %9s %9s %6s %8s %8s %10s %13s %10s\n' tier question calls "system B" \
  "message B" "cacheable" "warm" "reply B" "~tokens" "bytes/prev" "uncached/prev" "warm/prev"
scenario() { # scenario TIER QUESTION REPLY...
  local tier=$1 q=$2 now prev
  now=$(measure "$Q" "$@") || exit 1
  if [ -n "$PREV_Q" ]; then
    prev=$(measure "$PREV_Q" "$@") || exit 1
    # BENCH_ASK_RECORD=FILE keeps the previous release's figures (for previous.tsv)
    [ -z "${BENCH_ASK_RECORD:-}" ] || echo "$prev" >>"$BENCH_ASK_RECORD"
  else
    prev=$(awk -F'\t' -v t="$tier" '$1 == t' "$here/previous.tsv")
  fi
  python3 - "$q" "$now" "$prev" <<'EOF'
import sys
q, now, prev = sys.argv[1], sys.argv[2].split("\t"), sys.argv[3].split("\t")
tier, (calls, system, msgs, cached, reply, warm) = now[0], map(int, now[1:])
total = system + msgs
def ratio(a, b):
    return "%.2fx" % (a / b) if b else "-"
if len(prev) >= 6:
    p = list(map(int, prev[1:]))
    ptotal = p[1] + p[2]
    vs, vu = ratio(total, ptotal), ratio(total - cached, ptotal - p[3])
    vw = ratio(total - warm, ptotal - p[5]) if len(p) > 5 else "-"
else:
    vs = vu = vw = "-"
pct = lambda n: "%.0f%%" % (100.0 * n / total if total else 0)
print("%-8s %-40s %5d %9d %9d %9s %6s %8d %8s %10s %13s %10s" % (tier, q[:40], calls, system,
      msgs, pct(cached), pct(warm), reply, "~%d" % ((total + reply) // 4), vs, vu, vw))
EOF
}
scenario "2 query" "show me the commits of the past week ordered by size" "$R/arch_query.txt"
scenario "3 intent" "rank last week's commits by a risk score" "$R/arch_intent.txt" "$R/compiler.txt"
scenario "4 plan" "interesting commits from the most active contributor last week" \
  "$R/plan.txt" "$R/fetch1.txt" "$R/eval1.txt" "$R/fetch2.txt" "$R/eval2.txt"
echo "(system B: the system prompts (conventions and tools byte-identical for the Architect,"
echo " Fetcher and Compiler; the Evaluator shares the conventions);"
echo " messages B: today's date, the question, plan, resolved values and data samples;"
echo " cacheable: the share of all prompt bytes that an earlier call of the same question"
echo " sent as the same prefix, what a provider's prefix cache can serve; warm: the same"
echo " when the questions above it were asked before in the session; ~tokens: all"
echo " bytes / 4, a rough estimate, not a tokenizer count; bytes/prev: all prompt bytes"
echo " against the previous release, uncached/prev: the bytes no cache serves, likewise;"
echo " warm/prev: the bytes a warm cache does not serve, likewise;"
echo " below 1 is fewer. Previous: $PREV_FROM)"
fi

. "$here/sixteen.sh"
