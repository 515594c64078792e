#!/usr/bin/env bash
# run.sh -- the git source's benchmark: quarry's git tools against git itself on the
# same history, side by side, in one run.
#
# Usage: bench/git/run.sh [QUARRY_BINARY] [--repo DIR]      (works from any directory)
#   QUARRY_BINARY  defaults to build/quarry under the repository root.
#   --repo DIR     time a real repository instead of the synthetic one. Its statistics
#                  index (<git dir>/quarry/) is removed and rebuilt by the cold runs: it
#                  is a cache, and quarry rebuilds it on the next query anyway.
#
# What it does:
#   1. builds the synthetic repository (gen_repo.awk piped into `git fast-import`, then
#      `git gc`: 20,000 commits, 30 authors, a few thousand files, merges, renames, tags,
#      one unmerged branch; deterministic) into bench/git/.data/ unless it is there and
#      up to date;
#   2. checks that quarry agrees with git on the whole history of HEAD: commits per email
#      against `git shortlog -sne`, added and deleted lines per email against `git log
#      --numstat --no-renames` summed with awk, the three ways of computing them (cold,
#      warm, --no-index) against each other, and the commits of the last 30 days against
#      `git rev-list --count`;
#   3. times, each as a fresh process (hyperfine when installed, as root installing it
#      with apt-get when missing, else a `date +%s%N` loop; mean and min of BENCH_RUNS):
#        git log --numstat --no-renames HEAD        git shortlog -sne HEAD
#        quarry get_author_stats: cold (index removed first), --no-index, warm
#        quarry index (from no index)
#        quarry get_commits --limit 50 (warm)
#        the last 30 days before the newest commit (an explicit ISO date, so that the
#        window is the same on every run): git log --numstat --since vs quarry
#        get_commits --since (warm)
#   4. prints each time (mean and min wall time, and mean CPU time: user + system of the
#      command and its children), the ratios, and the targets next to them: cold at or
#      below git log --numstat in wall and in CPU time, warm at least 50x faster than it,
#      get_commits --limit 50 under 20 ms.
#
# Exit status: 0 even when a target is missed (this reports, it does not gate); 1 when
# quarry's answers disagree with git's or a timed command fails; 2 on a usage or setup
# error. Environment: BENCH_RUNS (5; the fast commands run 4x as often), BENCH_COMMITS
# (20000; smaller for a quick try), BENCH_BIG (1; K makes every synthetic commit K times
# larger, K times the files added and edited: a history of large commits over many
# files, e.g. BENCH_COMMITS=10000 BENCH_BIG=6).

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RUNS=${BENCH_RUNS:-5}
COMMITS=${BENCH_COMMITS:-20000}
BIG=${BENCH_BIG:-1}
WORK=$HERE/.data
RES=$WORK/results

say() { printf '%s\n' "$*" >&2; }
die() { say "run.sh: $*"; exit 2; }

QUARRY=
REPO=
while [ $# -gt 0 ]; do
    case $1 in
        --repo) [ $# -ge 2 ] || die "--repo needs a directory"; REPO=$2; shift 2 ;;
        --repo=*) REPO=${1#--repo=}; shift ;;
        -h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) die "unknown option '$1' (usage: $0 [QUARRY_BINARY] [--repo DIR])" ;;
        *) [ -z "$QUARRY" ] || die "one quarry binary only"; QUARRY=$1; shift ;;
    esac
done
QUARRY=${QUARRY:-$ROOT/build/quarry}
case $QUARRY in /*) ;; *) QUARRY=$PWD/$QUARRY ;; esac
[ -x "$QUARRY" ] || die "no quarry binary at $QUARRY (run make first, or pass its path)"
command -v git >/dev/null || die "git is required"
export LC_ALL=C TZ=UTC

# ---- timing: hyperfine, installed when missing if we may, else a date loop ----
if ! command -v hyperfine >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "== installing hyperfine (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq hyperfine >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq hyperfine >/dev/null 2>&1; } ||
        say "run.sh: could not install hyperfine; timing with a date +%s%N loop"
fi
HYPERFINE=$(command -v hyperfine || true)

mkdir -p "$RES"

# bench ID RUNS PREPARE COMMAND: times COMMAND (a shell command line), running PREPARE
# before each run (":" for nothing); writes "mean_ms min_ms cpu_ms" to $RES/ID.ms, cpu_ms
# being the mean CPU time (user + system, the command's children included): quarry uses
# both cores where it can, so on a busy machine its wall time alone flatters it.
bench() {
    local id=$1 runs=$2 prep=$3 cmd=$4
    say "== $id: $cmd"
    if ! sh -c "$prep" >/dev/null 2>&1 || ! sh -c "$cmd" >/dev/null 2>"$RES/$id.err"; then
        say "run.sh: failed: $cmd"; sed 's/^/  /' "$RES/$id.err" >&2
        echo "fail fail fail" >"$RES/$id.ms"
        FAILED=1
        return
    fi
    if [ -n "$HYPERFINE" ]; then
        "$HYPERFINE" --style none --warmup 1 --runs "$runs" --prepare "$prep" \
            --export-csv "$RES/$id.csv" "$cmd" >/dev/null 2>"$RES/$id.err" ||
            { say "run.sh: hyperfine failed: $(tail -c 300 "$RES/$id.err")"; echo "fail fail fail" >"$RES/$id.ms"; FAILED=1; return; }
        # command,mean,stddev,median,user,system,min,max (seconds)
        awk -F, 'NR == 2 { printf "%.3f %.3f %.3f\n", $2 * 1000, $7 * 1000, ($5 + $6) * 1000 }' \
            "$RES/$id.csv" >"$RES/$id.ms"
    else
        local i
        : >"$RES/$id.runs"
        for ((i = 1; i <= runs; i++)); do
            sh -c "$prep" >/dev/null 2>&1
            # real, user and system seconds of the command and its children
            { TIMEFORMAT='%R %U %S'; time sh -c "$cmd" >/dev/null 2>&1; } 2>>"$RES/$id.runs"
        done
        awk '{ s += $1; c += $2 + $3; if (NR == 1 || $1 < m) m = $1 }
             END { printf "%.3f %.3f %.3f\n", s / NR * 1e3, m * 1e3, c / NR * 1e3 }' \
            "$RES/$id.runs" >"$RES/$id.ms"
    fi
}
mean() { cut -d' ' -f1 "$RES/$1.ms"; }
best() { cut -d' ' -f2 "$RES/$1.ms"; }
cpu() { cut -d' ' -f3 "$RES/$1.ms"; }

# ---- 1. the repository ----
if [ -n "$REPO" ]; then
    R=$(cd "$REPO" 2>/dev/null && pwd) || die "no such directory: $REPO"
    git -C "$R" rev-parse --verify -q HEAD >/dev/null || die "not a git repository with commits: $R"
    LABEL="$R"
else
    R=$WORK/synth.git
    stamp="commits=$COMMITS big=$BIG gen=$(cksum <"$HERE/gen_repo.awk")"
    if [ "$(cat "$WORK/synth.stamp" 2>/dev/null)" != "$stamp" ] || [ ! -d "$R" ]; then
        say "== generating the synthetic repository ($COMMITS commits) in $R"
        rm -rf "$R" "$R.tmp" "$WORK/synth.stamp"
        git init -q --bare -b main "$R.tmp" || die "git init failed"
        LC_ALL=C awk -v commits="$COMMITS" -v authors=30 -v big="$BIG" -f "$HERE/gen_repo.awk" /dev/null |
            git -C "$R.tmp" fast-import --quiet || die "git fast-import failed"
        git -C "$R.tmp" gc -q || die "git gc failed"
        mv "$R.tmp" "$R"
        echo "$stamp" >"$WORK/synth.stamp"
    fi
    LABEL="synthetic ($COMMITS commits, big=$BIG; bench/git/gen_repo.awk)"
fi
GITDIR=$(cd "$R" && cd "$(git rev-parse --git-common-dir)" && pwd) || die "cannot find the git directory of $R"
IXDIR=$GITDIR/quarry
q() { "$QUARRY" "$@"; }
qs() { printf '%q ' "$QUARRY"; }   # the binary, quoted for the command lines
QQ=$(qs)
RQ=$(printf '%q' "$R")
IXQ=$(printf '%q' "$IXDIR")

NHEAD=$(git -C "$R" rev-list --count HEAD)
NALL=$(git -C "$R" rev-list --all --count)
NMERGES=$(git -C "$R" rev-list --merges --count HEAD)
NAUTHORS=$(git -C "$R" shortlog -sne HEAD | wc -l | tr -d ' ')
NFILES=$(git -C "$R" ls-tree -r HEAD | wc -l | tr -d ' ')
NEWEST=$(git -C "$R" log --format=%ct HEAD | sort -n | tail -n 1)
SINCE=$(date -u -d "@$((NEWEST - 30 * 86400))" +%Y-%m-%dT%H:%M:%SZ)
NWINDOW=$(git -C "$R" rev-list --count --since="$SINCE" HEAD)

# ---- 2. agreement with git ----
FAILED=0
say "== checking quarry against git"
rm -rf "$IXDIR"
q tool get_author_stats --repo "$R" --format json --limit-output 0 >"$RES/authors.cold.json" 2>"$RES/check.err" || FAILED=1
q tool get_author_stats --repo "$R" --format json --limit-output 0 >"$RES/authors.warm.json" 2>>"$RES/check.err" || FAILED=1
q tool get_author_stats --repo "$R" --format json --limit-output 0 --no-index >"$RES/authors.noindex.json" 2>>"$RES/check.err" || FAILED=1
for v in warm noindex; do
    if ! cmp -s "$RES/authors.cold.json" "$RES/authors.$v.json"; then
        say "DISAGREE: get_author_stats cold and $v differ ($RES/authors.cold.json, $RES/authors.$v.json)"
        FAILED=1
    fi
done
printf '{"a": %s}' "$(cat "$RES/authors.warm.json")" >"$RES/authors.wrapped.json"
q lisp --data "$RES/authors.wrapped.json" -e \
    '(doseq [a data/a] (println (str (:email a) "\t" (:commits a) "\t" (:additions a) "\t" (:deletions a))))' |
    sed '$d' | sort >"$RES/authors.quarry.tsv"
git -C "$R" shortlog -sne HEAD |
    awk -F'\t' '{ n = $1 + 0; e = $2; sub(/^.*</, "", e); sub(/>$/, "", e); c[e] += n }
                END { for (e in c) print e "\t" c[e] }' | sort >"$RES/shortlog.tsv"
git -C "$R" -c core.quotePath=false log --numstat --no-renames --format='C %aE' HEAD |
    awk -F'\t' '/^C / { e = substr($0, 3); seen[e] = 1; next }
                NF >= 3 { if ($1 != "-") { a[e] += $1; d[e] += $2 } }
                END { for (e in seen) print e "\t" a[e] + 0 "\t" d[e] + 0 }' | sort >"$RES/numstat.tsv"
join -t "$(printf '\t')" "$RES/shortlog.tsv" "$RES/numstat.tsv" >"$RES/authors.git.tsv"
if ! cmp -s "$RES/authors.git.tsv" "$RES/authors.quarry.tsv" || [ ! -s "$RES/authors.git.tsv" ]; then
    say "DISAGREE: author stats (email, commits, additions, deletions): git vs quarry"
    diff "$RES/authors.git.tsv" "$RES/authors.quarry.tsv" | head -n 20 >&2
    FAILED=1
else
    say "   author stats agree with git shortlog -sne and git log --numstat ($(wc -l <"$RES/authors.git.tsv" | tr -d ' ') emails)"
fi
QWIN=$(q lisp --repo "$R" -e "(count (tool/get_commits {:since \"$SINCE\"}))" 2>>"$RES/check.err")
if [ "$QWIN" != "$NWINDOW" ]; then
    say "DISAGREE: commits since $SINCE: git $NWINDOW, quarry $QWIN"
    FAILED=1
fi

# ---- 3. timings ----
FAST=$((RUNS * 4))
bench git_numstat "$RUNS" : "git -C $RQ log --numstat --no-renames HEAD"
bench git_shortlog "$FAST" : "git -C $RQ shortlog -sne HEAD"
bench q_cold "$RUNS" "rm -rf $IXQ" "${QQ}tool get_author_stats --repo $RQ --format json --limit-output 0"
bench q_noindex "$RUNS" : "${QQ}tool get_author_stats --repo $RQ --format json --limit-output 0 --no-index"
bench q_index "$RUNS" "rm -rf $IXQ" "${QQ}index --repo $RQ"
q index --repo "$R" >/dev/null 2>&1
bench q_warm "$FAST" : "${QQ}tool get_author_stats --repo $RQ --format json --limit-output 0"
bench q_commits50 "$FAST" : "${QQ}tool get_commits --repo $RQ --limit 50 --format json"
bench git_window "$FAST" : "git -C $RQ log --numstat --no-renames --since=$SINCE HEAD"
bench q_window "$FAST" : "${QQ}tool get_commits --repo $RQ --since $SINCE --format json --limit-output 0"

# ---- 4. the report ----
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "fail" || b == "fail" || b == 0) print "-"; else printf "%.2f", a / b }'; }
verdict() { # value op target
    awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
        if (v == "-" || v == "fail") { print "n/a"; exit }
        ok = (op == "<=") ? v <= t : (op == ">=") ? v >= t : v < t
        print ok ? "met" : "MISSED" }'
}
row() { printf '  %-52s %10s %10s %10s   %s\n' "$1" "$(mean "$2")" "$(best "$2")" "$(cpu "$2")" "${3:-}"; }

COLD_R=$(ratio "$(mean q_cold)" "$(mean git_numstat)")
COLD_CPU_R=$(ratio "$(cpu q_cold)" "$(cpu git_numstat)")
NOIX_CPU_R=$(ratio "$(cpu q_noindex)" "$(cpu git_numstat)")
NOIX_R=$(ratio "$(mean q_noindex)" "$(mean git_numstat)")
WARM_X=$(ratio "$(mean git_numstat)" "$(mean q_warm)")
SHORT_X=$(ratio "$(mean git_shortlog)" "$(mean q_warm)")
INDEX_R=$(ratio "$(mean q_index)" "$(mean git_numstat)")
WIN_X=$(ratio "$(mean git_window)" "$(mean q_window)")
C50=$(mean q_commits50)

echo
echo "quarry git benchmark -- $LABEL"
echo "  repository: $R"
echo "  HEAD: $NHEAD commits ($NMERGES merges), $NALL from all refs, $NAUTHORS authors (shortlog -sne), $NFILES files at HEAD"
echo "  $(nproc) cores; $(git --version); timing: ${HYPERFINE:+hyperfine $("$HYPERFINE" --version | cut -d' ' -f2), }fresh processes, mean and min of $RUNS runs (fast commands $FAST)"
echo
printf '  %-52s %10s %10s %10s   %s\n' "full history of HEAD" "mean ms" "min ms" "cpu ms" "ratio (target)"
row "git log --numstat --no-renames" git_numstat
row "git shortlog -sne" git_shortlog
row "quarry get_author_stats, cold (index removed)" q_cold "${COLD_R}x git log (<= 1: $(verdict "$COLD_R" "<=" 1)); cpu ${COLD_CPU_R}x (<= 1: $(verdict "$COLD_CPU_R" "<=" 1))"
row "quarry get_author_stats --no-index" q_noindex "${NOIX_R}x git log (<= 1: $(verdict "$NOIX_R" "<=" 1)); cpu ${NOIX_CPU_R}x"
row "quarry get_author_stats, warm (index built)" q_warm "git log / warm = ${WARM_X}x (>= 50: $(verdict "$WARM_X" ">=" 50)); shortlog / warm = ${SHORT_X}x"
row "quarry index (from no index)" q_index "${INDEX_R}x git log"
row "quarry get_commits --limit 50 (warm)" q_commits50 "(< 20 ms: $(verdict "$C50" "<" 20))"
echo
printf '  %-52s %10s %10s %10s   %s\n' "last 30 days: since $SINCE ($NWINDOW commits)" "" "" "" ""
row "git log --numstat --no-renames --since" git_window
row "quarry get_commits --since (warm)" q_window "git / quarry = ${WIN_X}x"
echo
if [ "$FAILED" != 0 ]; then
    echo "FAILED: quarry disagrees with git, or a command failed (see above; files in $RES)"
    exit 1
fi
echo "answers agree with git (shortlog -sne commits, log --numstat lines per email; $NWINDOW commits in the window)"
exit 0
