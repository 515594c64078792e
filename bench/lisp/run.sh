#!/usr/bin/env bash
# run.sh -- quarry's records benchmark: one query, several languages, same data.
#
# Usage: bench/lisp/run.sh [QUARRY_BINARY]     (works from any directory)
#   QUARRY_BINARY defaults to build/quarry under the repository root.
#
# What it does:
#   1. makes the data (gen_data.py, fixed seed) in bench/lisp/.data/ unless
#      it is already there and up to date;
#   2. runs the query (see README.md) in quarry, C, nbb, Python, Lua and jq,
#      each BENCH_RUNS times (default 5) as a fresh process; every version
#      times its query apart from loading the data, and the best run counts
#      (jq cannot do that: see query.jq);
#   3. checks that every answer is the same (report.py normalizes the JSON);
#   4. measures quarry's start-up (`quarry lisp -e nil`, hyperfine if
#      installed, else a date +%s%N loop);
#   5. prints a table of query times and quarry's ratio to each, next to the
#      targets.
#
# A missing tool (quarry binary, lua5.4, jq, cc, npm/nbb) is skipped with a
# message. Exit status: 0 even when a target is missed (this reports, it does
# not gate); 1 when answers disagree or a version that ran failed; 2 on a
# usage or setup error (no python3).
#
# Environment: BENCH_RUNS (5), BENCH_STARTUP_RUNS (30), BENCH_RECORDS
# (100000; smaller for a quick try), NBB_VERSION (pinned below).

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RUNS=${BENCH_RUNS:-5}
STARTUP_RUNS=${BENCH_STARTUP_RUNS:-30}
RECORDS=${BENCH_RECORDS:-100000}
NBB_VERSION=${NBB_VERSION:-1.6.214}
WORK=$HERE/.data
RES=$WORK/results

if [ $# -gt 1 ]; then
    echo "usage: $0 [QUARRY_BINARY]" >&2
    exit 2
fi
QUARRY=${1:-$ROOT/build/quarry}
case $QUARRY in /*) ;; *) QUARRY=$PWD/$QUARRY ;; esac

if ! command -v python3 >/dev/null; then
    echo "run.sh: python3 is required (data generator and answer checker)" >&2
    exit 2
fi

say() { printf '%s\n' "$*" >&2; }
now_ns() { date +%s%N; }
ms_between() { awk -v ns=$(($2 - $1)) 'BEGIN { printf "%.3f\n", ns / 1e6 }'; }   # T0_NS T1_NS

# ---- 1. data ---------------------------------------------------------------
mkdir -p "$WORK"
stamp="records=$RECORDS gen=$(cksum <"$HERE/gen_data.py")"
if [ "$(cat "$WORK/stamp" 2>/dev/null)" != "$stamp" ] ||
   [ ! -f "$WORK/commits.json" ] || [ ! -f "$WORK/commits_obj.json" ] ||
   [ ! -f "$WORK/commits.lua" ] || [ ! -f "$WORK/commits.tsv" ]; then
    say "== generating $RECORDS records in $WORK"
    python3 "$HERE/gen_data.py" "$WORK" "$RECORDS" || { say "run.sh: gen_data.py failed"; exit 2; }
    echo "$stamp" >"$WORK/stamp"
fi

rm -rf "$RES"
mkdir -p "$RES"

# ---- 2. the runs -----------------------------------------------------------
# run_impl NAME CMD...: runs CMD $RUNS times; CMD prints the answer on stdout
# and `time_ms: N` on stderr. Writes $RES/NAME.{status,out,ms}.
run_impl() {
    local name=$1; shift
    local i ms
    say "== $name ($RUNS runs)"
    : >"$RES/$name.ms"
    for ((i = 1; i <= RUNS; i++)); do
        if ! "$@" >"$RES/$name.run.out" 2>"$RES/$name.err"; then
            echo "fail: exited non-zero; stderr: $(tail -c 400 "$RES/$name.err")" >"$RES/$name.status"
            return
        fi
        ms=$(sed -n 's/^time_ms: *//p' "$RES/$name.err" | tail -n 1)
        if [ -z "$ms" ]; then
            echo "fail: no 'time_ms:' line on stderr" >"$RES/$name.status"
            return
        fi
        echo "$ms" >>"$RES/$name.ms"
        [ "$i" = 1 ] && cp "$RES/$name.run.out" "$RES/$name.out"
    done
    echo ok >"$RES/$name.status"
}

skip() { echo "skip: $2" >"$RES/$1.status"; say "== $1: skipped ($2)"; }

# quarry: its --stats line on stderr carries eval_ms (and read_ms).
quarry_time() {   # stderr file -> "eval_ms read_ms" (read_ms may be "-")
    python3 - "$1" <<'EOF'
import json, sys
for line in reversed(open(sys.argv[1]).read().splitlines()):
    line = line.strip()
    if line.startswith("{"):
        try:
            st = json.loads(line)
        except ValueError:
            continue
        if isinstance(st, dict) and "eval_ms" in st:
            print(st["eval_ms"], st.get("read_ms", "-"))
            sys.exit(0)
sys.exit(1)
EOF
}

run_quarry() {
    local i t
    say "== quarry ($RUNS runs)"
    : >"$RES/quarry.ms"; : >"$RES/quarry.read_ms"
    for ((i = 1; i <= RUNS; i++)); do
        if ! "$QUARRY" lisp "$HERE/query.clj" --data "$WORK/commits_obj.json" \
                --format json --stats >"$RES/quarry.run.out" 2>"$RES/quarry.err"; then
            echo "fail: exited non-zero; stderr: $(tail -c 400 "$RES/quarry.err")" >"$RES/quarry.status"
            return
        fi
        if ! t=$(quarry_time "$RES/quarry.err"); then
            echo "fail: no stats line with eval_ms on stderr" >"$RES/quarry.status"
            return
        fi
        echo "${t% *}" >>"$RES/quarry.ms"
        echo "${t#* }" >>"$RES/quarry.read_ms"
        [ "$i" = 1 ] && cp "$RES/quarry.run.out" "$RES/quarry.out"
    done
    echo ok >"$RES/quarry.status"
}

# jq: cannot separate parsing from the query, so time the whole run, and a
# parse-only run (`jq length`) to subtract.
run_jq() {
    local i t0 t1
    say "== jq ($RUNS runs of the query, $RUNS parse-only runs)"
    : >"$RES/jq.ms"; : >"$RES/jq-parse.ms"
    for ((i = 1; i <= RUNS; i++)); do
        t0=$(now_ns)
        if ! jq -c -f "$HERE/query.jq" "$WORK/commits.json" >"$RES/jq.run.out" 2>"$RES/jq.err"; then
            echo "fail: exited non-zero; stderr: $(tail -c 400 "$RES/jq.err")" >"$RES/jq.status"
            return
        fi
        t1=$(now_ns)
        ms_between "$t0" "$t1" >>"$RES/jq.ms"
        [ "$i" = 1 ] && cp "$RES/jq.run.out" "$RES/jq.out"
        t0=$(now_ns)
        jq -c length "$WORK/commits.json" >/dev/null 2>&1
        t1=$(now_ns)
        ms_between "$t0" "$t1" >>"$RES/jq-parse.ms"
    done
    echo ok >"$RES/jq.status"
}

# quarry
if [ -x "$QUARRY" ]; then
    run_quarry
else
    skip quarry "no quarry binary at $QUARRY (build it first, or pass its path)"
fi

# C
if command -v cc >/dev/null; then
    if [ ! -x "$WORK/query_c" ] || [ "$HERE/query.c" -nt "$WORK/query_c" ]; then
        say "== compiling query.c (cc -O2)"
        cc -O2 -o "$WORK/query_c" "$HERE/query.c"
    fi
    if [ -x "$WORK/query_c" ]; then
        run_impl c "$WORK/query_c" "$WORK/commits.tsv"
    else
        echo "fail: cc -O2 query.c failed" >"$RES/c.status"
    fi
else
    skip c "cc not found"
fi

# nbb (ClojureScript on Node), installed into bench/lisp/.node/ on first use
NBB=$HERE/.node/node_modules/.bin/nbb
if [ ! -x "$NBB" ] && command -v npm >/dev/null && command -v node >/dev/null; then
    say "== installing nbb@$NBB_VERSION into $HERE/.node"
    mkdir -p "$HERE/.node"
    npm install --prefix "$HERE/.node" --no-audit --no-fund --silent "nbb@$NBB_VERSION" >&2 ||
        say "run.sh: npm install nbb failed"
fi
if [ -x "$NBB" ] && command -v node >/dev/null; then
    run_impl nbb "$NBB" "$HERE/query_nbb.cljs" "$WORK/commits.json" "$HERE/query.clj"
elif ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    skip nbb "node/npm not found"
else
    skip nbb "npm install nbb@$NBB_VERSION failed"
fi

# Python
run_impl python3 python3 "$HERE/query.py" "$WORK/commits.json"

# Lua
if command -v lua5.4 >/dev/null; then
    run_impl lua5.4 lua5.4 "$HERE/query.lua" "$WORK/commits.lua"
else
    skip lua5.4 "lua5.4 not found (apt-get install lua5.4)"
fi

# jq
if command -v jq >/dev/null; then
    run_jq
else
    skip jq "jq not found (apt-get install jq)"
fi

# ---- 4. quarry start-up ----------------------------------------------------
if [ -x "$QUARRY" ]; then
    say "== quarry start-up: \`quarry lisp -e nil\` x $STARTUP_RUNS"
    if "$QUARRY" lisp -e nil >/dev/null 2>"$RES/startup.err"; then
        if command -v hyperfine >/dev/null; then
            if hyperfine -N --style none --warmup 3 --runs "$STARTUP_RUNS" \
                    --export-json "$RES/startup.json" "$QUARRY lisp -e nil" >/dev/null 2>&1; then
                python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.3f %.3f" % (r["mean"]*1e3, r["stddev"]*1e3))' \
                    "$RES/startup.json" >"$RES/startup.ms"
                echo "hyperfine, $STARTUP_RUNS runs after 3 warm-up" >"$RES/startup.how"
            fi
        fi
        if [ ! -s "$RES/startup.ms" ]; then
            t0=$(now_ns)
            for ((i = 0; i < STARTUP_RUNS; i++)); do "$QUARRY" lisp -e nil >/dev/null; done
            t1=$(now_ns)
            awk -v ns=$((t1 - t0)) -v n="$STARTUP_RUNS" 'BEGIN { printf "%.3f -\n", ns / n / 1e6 }' >"$RES/startup.ms"
            echo "date +%s%N loop, $STARTUP_RUNS runs (includes fork/exec of the loop)" >"$RES/startup.how"
        fi
    else
        echo "fail: quarry lisp -e nil exited non-zero: $(tail -c 300 "$RES/startup.err")" >"$RES/startup.status"
    fi
fi

# ---- 3+5. check answers and report -----------------------------------------
echo
python3 "$HERE/report.py" "$RES" "$RUNS" "$RECORDS"
