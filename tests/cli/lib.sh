# lib.sh: helpers for the CLI test scripts. Each script is run as `sh NN_name.sh QUARRY`
# by ctest; it sources this file, runs commands and compares what they print and return.
Q=${1:?usage: sh test.sh path/to/quarry}
SRC=${QUARRY_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0

# The clock, pinned for the whole script: every quarry run reads QUARRY_NOW and git reads
# the same instant for its relative dates (GIT_TEST_DATE_NOW: "1 week ago"), so answers
# and their expectations are computed from one instant and a run that crosses midnight
# agrees with itself. NOW is the (possibly faked, see 90_any_time.sh) time at the start,
# moved out of the first minute of a UTC day so that fixtures placed between midnight and
# NOW have room for distinct commit times.
NOW=$(date +%s)
if [ $((NOW % 86400)) -lt 60 ]; then NOW=$((NOW + 60)); fi
QUARRY_NOW=$NOW
GIT_TEST_DATE_NOW=$NOW
export QUARRY_NOW GIT_TEST_DATE_NOW

# expect_out "description" "expected stdout" command...
expect_out() {
  desc=$1; want=$2; shift 2
  got=$("$@" 2>"$TMP/stderr"); rc=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $desc"; echo "  want: $want"; echo "  got:  $got (exit $rc)"; sed 's/^/  stderr: /' "$TMP/stderr"
    FAILS=$((FAILS + 1))
  fi
}

# expect_rc "description" code command...
expect_rc() {
  desc=$1; want=$2; shift 2
  "$@" >"$TMP/stdout" 2>"$TMP/stderr"; rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: $desc: exit $rc, want $want"; sed 's/^/  /' "$TMP/stdout" "$TMP/stderr"
    FAILS=$((FAILS + 1))
  fi
}

# expect_err "description" "substring of stderr" command...
expect_err() {
  desc=$1; want=$2; shift 2
  "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  if ! grep -qF -- "$want" "$TMP/stderr"; then
    echo "FAIL: $desc: stderr lacks '$want'"; sed 's/^/  /' "$TMP/stderr"
    FAILS=$((FAILS + 1))
  fi
}

finish() {
  if [ "$FAILS" -gt 0 ]; then echo "$FAILS failure(s)"; exit 1; fi
  echo "ok"
}
