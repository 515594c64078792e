#!/bin/sh
# dwim_races.sh: the concurrency and fault cases of `quarry dwim fix` and `undo`, repeated
# in bounded loops on a real repository made here, with outcome checks that do not depend
# on timing (a kill lands wherever it lands; what must hold holds wherever that is):
#   1. two `fix` at once, on two files, ROUNDS times: every edit that reported success
#      has its own undo number, and undoing them all gives back both files byte for byte;
#   2. kill -9 during an edit of a large file, at varied moments: the file is the old
#      content or the new one (never a mix), and `undo` until "nothing to undo" gives back
#      the original, never "damaged";
#   3. kill -9 during an undo: the next undos finish the job, the file ends as the original.
# Usage: sh tests/probe/dwim_races.sh path/to/quarry [ROUNDS]. Exit 0 when every check
# held; it prints what it saw (counts, leftovers) either way.
Q=${1:?usage: sh dwim_races.sh path/to/quarry [ROUNDS]}
ROUNDS=${2:-20}
case $Q in /*) ;; *) Q=$(pwd)/$Q ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

R="$TMP/repo"
git init -q -b main "$R"
cd "$R" || exit 1
git config user.name T
git config user.email t@example.com
printf 'int a = 0;\n' > a.c
printf 'int b = 0;\n' > b.c
awk 'BEGIN { for (i = 0; i < 400000; i++) printf "line %d of a large file\n", i }' > big.txt
echo 'marker old' >> big.txt
git add -A
git commit -qm init
cp a.c "$TMP/a.orig"; cp b.c "$TMP/b.orig"; cp big.txt "$TMP/big.orig"

bump() { # file from to
  printf 'fix %s\n<<<<<<< SEARCH\n%s\n=======\n%s\n>>>>>>> REPLACE\n' "$1" "$2" "$3"
}

undo_all() { # undoes until nothing is left; prints the count; fails on any other error
  n=0
  while [ $n -lt 1000 ]; do
    if "$Q" dwim undo > "$TMP/u.out" 2> "$TMP/u.err"; then
      n=$((n + 1))
    else
      grep -q "nothing to undo" "$TMP/u.err" || { fail "undo: $(cat "$TMP/u.err")"; break; }
      break
    fi
  done
  echo $n
}

# ---- 1. two fix at once ----
ok=0
i=0
while [ $i -lt "$ROUNDS" ]; do
  "$Q" dwim --write "$(bump a.c "$(sed -n 1p a.c)" "int a = $((i + 1));")" > "$TMP/f1" 2>&1 &
  p1=$!
  "$Q" dwim --write "$(bump b.c "$(sed -n 1p b.c)" "int b = $((i + 1));")" > "$TMP/f2" 2>&1 &
  p2=$!
  wait $p1 && ok=$((ok + 1))
  wait $p2 && ok=$((ok + 1))
  i=$((i + 1))
done
logged=$(ls .git/quarry/dwim-undo/*.path 2>/dev/null | wc -l)
[ "$logged" = "$ok" ] || fail "two at once: $ok edits succeeded but $logged undo records"
undone=$(undo_all)
[ "$undone" = "$ok" ] || fail "two at once: $undone undos for $ok edits"
cmp -s a.c "$TMP/a.orig" || fail "two at once: a.c not restored"
cmp -s b.c "$TMP/b.orig" || fail "two at once: b.c not restored"
echo "two at once: $ROUNDS rounds, $ok edits, $logged records, $undone undone"

# ---- 2. kill -9 during an edit ----
kills=0
i=0
for d in 0 0.01 0.02 0.03 0.05 0.08 0.1 0.15 0.2 0.3; do
  [ $i -ge "$ROUNDS" ] && break
  "$Q" dwim --write "$(bump big.txt 'marker old' 'marker new')" > /dev/null 2>&1 &
  p=$!
  sleep $d
  kill -9 $p 2>/dev/null && kills=$((kills + 1))
  wait $p 2>/dev/null
  if ! cmp -s big.txt "$TMP/big.orig"; then
    sed 's/^marker new$/marker old/' big.txt | cmp -s - "$TMP/big.orig" ||
      fail "kill during edit (after ${d}s): big.txt is neither old nor new"
  fi
  undo_all > /dev/null
  cmp -s big.txt "$TMP/big.orig" || fail "kill during edit (after ${d}s): undo did not restore big.txt"
  i=$((i + 1))
done
echo "kill during edit: $i runs, $kills killed before they ended"

# ---- 3. kill -9 during an undo ----
kills=0
i=0
for d in 0 0.01 0.02 0.03 0.05 0.08 0.1 0.15 0.2 0.3; do
  [ $i -ge "$ROUNDS" ] && break
  "$Q" dwim --write "$(bump big.txt 'marker old' 'marker new')" > /dev/null 2>&1 || fail "edit before the undo kill"
  "$Q" dwim undo > /dev/null 2>&1 &
  p=$!
  sleep $d
  kill -9 $p 2>/dev/null && kills=$((kills + 1))
  wait $p 2>/dev/null
  undo_all > /dev/null
  cmp -s big.txt "$TMP/big.orig" || fail "kill during undo (after ${d}s): big.txt not restored"
  i=$((i + 1))
done
echo "kill during undo: $i runs, $kills killed before they ended"
left=$(ls -a | grep -c '^\.quarry-fix\.' || true)
echo "temporary files left in the tree by killed writes: $left"
git status --porcelain | grep -v '^?? \.quarry-fix\.' | grep . && fail "the tree differs from HEAD"

if [ $FAILS -gt 0 ]; then echo "$FAILS failure(s)"; exit 1; fi
echo ok
