# 31_index_interrupt.sh: Ctrl-C (SIGINT) in the middle of `quarry index` keeps the commits
# whose statistics were stored before it, says how many, exits 1; a second run computes
# only the rest, and the index then agrees with a run that was never interrupted. Made
# deterministic with a `git` on PATH that runs the real one for the first batch and then
# waits (it never answers), so the signal always comes between two batches.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY
mkdir -p "$HOME"
REAL_GIT=$(command -v git)

# 3,000 commits, each changing one of seven files
R="$TMP/repo"
git init -q -b main "$R"
i=1
{
  while [ $i -le 3000 ]; do
    printf 'commit refs/heads/main\ncommitter Ann <ann@example.com> %d +0000\ndata 9\nstep %04d\n' $((1700000000 + i * 60)) $i
    printf 'M 644 inline f%d.txt\ndata 10\nstep %04d\n\n' $((i % 7)) $i
    i=$((i + 1))
  done
} | git -C "$R" fast-import --quiet
git -C "$R" reset -q --hard main

# the wrapper: the processes of the first batch run git; a later one says it started and
# then waits. The first batch (512 commits) runs on one process per core, with at least
# 200 commits each (src/git/numstat.c): 2 processes, or 1 on a single core.
FIRST=1
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] && FIRST=2
mkdir -p "$TMP/bin" "$TMP/calls"
cat >"$TMP/bin/git" <<SH
#!/bin/sh
case " \$* " in
  *" log "*)
    n=1
    while ! mkdir "$TMP/calls/\$n" 2>/dev/null; do n=\$((n + 1)); done
    if [ \$n -gt $FIRST ]; then
      : >"$TMP/blocked"
      exec sleep 600
    fi ;;
esac
exec "$REAL_GIT" "\$@"
SH
chmod +x "$TMP/bin/git"

PATH="$TMP/bin:$PATH" "$Q" index --repo "$R" --format json >"$TMP/out1" 2>"$TMP/err1" &
PID=$!
n=0
while [ ! -e "$TMP/blocked" ] && [ $n -lt 2400 ]; do sleep 0.05; n=$((n + 1)); done
if [ ! -e "$TMP/blocked" ]; then
  echo "FAIL: the index never reached its second batch"; sed 's/^/  /' "$TMP/err1"
  FAILS=$((FAILS + 1))
fi
kill -INT $PID
wait $PID; rc=$?
[ "$rc" = 1 ] || { echo "FAIL: an interrupted index exits $rc, want 1"; FAILS=$((FAILS + 1)); }
kept=$(sed -n 's/.*stopped: cancelled; \([0-9]*\) commits indexed before it and kept; run it again to index the rest.*/\1/p' "$TMP/err1")
case $kept in
  ''|*[!0-9]*) echo "FAIL: no count of the kept commits:"; sed 's/^/  /' "$TMP/err1"; FAILS=$((FAILS + 1)); kept=0 ;;
esac
[ "$kept" -gt 0 ] && [ "$kept" -lt 3000 ] || { echo "FAIL: kept $kept commits, want some but not all"; FAILS=$((FAILS + 1)); }

# the second run computes only the rest
expect_out "the second run indexes the rest" \
  "$(printf '{"indexed_now":%d,"indexed":3000}' $((3000 - kept)))" \
  sh -c "'$Q' index --repo '$R' --format json | sed 's/,\"seconds\":[0-9.]*//'"

# and the index answers as one built in one go
R2="$TMP/repo2"
git clone -q "$R" "$R2"
"$Q" index --repo "$R2" >/dev/null 2>&1
expect_out "the same statistics as an index built in one go" \
  "$("$Q" tool get_file_stats --repo "$R2" --format json)" \
  "$Q" tool get_file_stats --repo "$R" --format json
finish
