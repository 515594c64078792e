#!/usr/bin/env bash
# run.sh -- no regression beyond noise: the instructions (valgrind's callgrind, a count
# that does not depend on the machine's load) two quarry binaries spend on the same
# workloads of the Lisp, SPARQL, git, memory and code benchmarks, and their ratio. Build
# the base from an earlier commit (git worktree add /tmp/base REV; cmake --build) and
# pass both binaries.
#
# Usage: bench/regress/run.sh BASE_QUARRY NEW_QUARRY
# Exit status: 0 (it reports, it does not gate); 2 on bad usage or no valgrind.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BASE=${1:?usage: run.sh BASE_QUARRY NEW_QUARRY}
NEW=${2:?usage: run.sh BASE_QUARRY NEW_QUARRY}
command -v valgrind >/dev/null || { echo "run.sh: valgrind is not installed" >&2; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME="$W/home" TZ=UTC
mkdir -p "$HOME"

# fixtures, the same for both binaries
python3 "$ROOT/bench/lisp/gen_data.py" "$W" 20000 >/dev/null 2>&1
bash "$ROOT/bench/memory/gen.sh" "$NEW" "$W/mem.db" 5000 >/dev/null 2>&1
python3 -c "
for i in range(400): print(f'<http://e/n{i}> <http://e/p> <http://e/n{(i*7+1)%400}> .')
for i in range(400): print(f'<http://e/n{i}> <http://e/q> \"{i}\" .')" >"$W/g.nt"
git init -q -b main "$W/repo"
i=1
{
  while [ $i -le 2000 ]; do
    printf 'commit refs/heads/main\ncommitter A%d <a%d@e.com> %d +0000\ndata 4\nstep\n' $((i % 17)) $((i % 17)) $((1700000000 + i * 60))
    printf 'M 644 inline f%d.txt\ndata 10\nstep %04d\n\n' $((i % 37)) $i
    i=$((i + 1))
  done
} | git -C "$W/repo" fast-import --quiet
git -C "$W/repo" reset -q --hard main
"$NEW" index --repo "$W/repo" >/dev/null 2>&1
git init -q -b main "$W/tree"
python3 - "$W/tree" <<'PY'
import os, sys
for d in range(3):
    os.makedirs(f"{sys.argv[1]}/d{d}", exist_ok=True)
    for f in range(100):
        with open(f"{sys.argv[1]}/d{d}/f{f}.c", "w") as o:
            for k in range(10):
                o.write(f"int d{d}_f{f}_g{k}(int y) {{ return y ? d{d}_f{f}_g{(k + 1) % 10}(y - 1) : 0; }}\n")
PY
git -C "$W/tree" add -A && git -C "$W/tree" -c user.name=A -c user.email=a@e.com commit -qm tree

ir() { # ir BIN ARGS... -> instructions of one run
  local bin=$1; shift
  rm -f "$W/cg.out"; rm -rf "$W/tree/.git/quarry"
  valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$bin" "$@" >/dev/null 2>&1
  awk '/^summary:/ {print $2}' "$W/cg.out"
}
work() {
  local name=$1; shift
  local a b
  # a run of each first, not counted: caches a first run writes (the statistics index's,
  # the memory store's spectral file) serve both counted runs alike
  "$BASE" "$@" >/dev/null 2>&1; "$NEW" "$@" >/dev/null 2>&1
  a=$(ir "$BASE" "$@"); b=$(ir "$NEW" "$@")
  printf "%-28s %14s %14s %7s\n" "$name" "$a" "$b" "$(python3 -c "print(f'{$b/$a:.3f}' if $a else '-')")"
}
printf "%-28s %14s %14s %7s\n" workload base new new/base
work "lisp records query" lisp --timeout-ms 600000 "$ROOT/bench/lisp/query.clj" --data "$W/commits_obj.json" --format json
work "lisp loop 2M" lisp --timeout-ms 600000 -e '(loop [i 0 s 0] (if (< i 2000000) (recur (inc i) (+ s i)) s))'
work "sparql join+filter" sparql --data "$W/g.nt" 'SELECT (COUNT(*) AS ?n) { ?a <http://e/p> ?b . ?b <http://e/p> ?c . ?c <http://e/q> ?v FILTER(?v != "3") }'
work "sparql exists" sparql --data "$W/g.nt" 'SELECT (COUNT(*) AS ?n) WHERE { ?x ?p ?a FILTER EXISTS { ?y ?q ?a FILTER(?y != ?x) } }'
work "git author stats (index)" tool get_author_stats --repo "$W/repo" --format json
work "git file history" tool get_file_history --repo "$W/repo" --path f3.txt --format json
work "memory pipeline spread" mem query --store "$W/mem.db" 'type:procedural | spread | limit:20'
work "code index 300 files" code index --repo "$W/tree" --format json
