# 90_any_time.sh: the date-sensitive scripts pass whatever the system clock says. Each runs
# under faketime (libfaketime, LD_PRELOAD) at the instants where calendar windows turn
# over: a Monday at 00:30 UTC ("this week" is half an hour old), the 1st of a month at
# 00:30 ("this month"), 1 January at 00:30 ("this year"), and 23:59:50, so that the run
# crosses midnight while it goes (the clock keeps ticking from the faked instant, across
# processes). The scripts pin QUARRY_NOW and GIT_TEST_DATE_NOW from the faked `date` at
# their start (lib.sh) and place their commits relative to it.
# Exits 77 (ctest: skipped, never passed) when faketime is not installed or does not
# take effect here, and in the sanitizer build (QUARRY_SANITIZED, set by CMake), where an
# ASan binary with libfaketime preloaded hangs at start (docs/decisions.md, "The clock").
. "$(dirname "$0")/lib.sh"

case $Q in /*) ;; *) Q="$(pwd)/$Q" ;; esac # the scripts change directory
if [ -n "${QUARRY_SANITIZED:-}" ]; then
  echo "skipped: a sanitizer build hangs with libfaketime preloaded; the release build runs this"
  exit 77
fi
if ! command -v faketime >/dev/null 2>&1; then
  echo "skipped: faketime is not installed (scripts/deps.sh --test installs it)"
  exit 77
fi
# NO_FAKE_STAT: file times stay the kernel's (faked ones can hide that a file changed,
# which the index's damage check reads); only the clock is faked
export TZ=UTC FAKETIME_DONT_RESET=1 NO_FAKE_STAT=1
if [ "$(faketime '2001-02-03 04:05:06' date -u +%Y-%m-%dT%H:%M)" != "2001-02-03T04:05" ]; then
  echo "skipped: faketime does not take effect in this environment"
  exit 77
fi
# quarry itself sees the faked clock when QUARRY_NOW is unset (a store's creation time)
expect_out "quarry reads the faked clock" '"created":"2001-02-03T04:05:06Z"' sh -c \
  "env -u QUARRY_NOW faketime -f '2001-02-03 04:05:06' '$Q' mem add k --content c --store '$TMP/t.db' >/dev/null &&
   '$Q' mem get k --store '$TMP/t.db' --format json | grep -o '\"created\":\"[^\"]*\"'"

# Every date-sensitive script runs at the Monday; the ones whose questions name calendar
# windows (today, this week, this month, this year, ages, zone-less dates) run at every
# instant. The others only count back from a pinned NOW and take a minute and a half
# between them, too long to repeat four times in every `make test`.
ALL="03_git 04_index 05_query 09_docs 11_router 12_mem 13_ask 14_mem_query 15_mem_agent 16_clock"
CALENDAR="03_git 05_query 11_router 14_mem_query 16_clock"
# a Monday, the 1st of a month (a Tuesday), 1 January (a Friday), a minute to midnight
PLAN=${QUARRY_ANY_TIME_PLAN:-"2026-11-23T00:30:00=$ALL
2026-12-01T00:30:00=$CALENDAR
2027-01-01T00:30:00=$CALENDAR
2026-11-24T23:59:50=$CALENDAR"}

# the instants are what they claim to be
expect_out "the Monday is a Monday" "1" date -u -d 2026-11-23 +%u
expect_out "the 1st is a Tuesday, not a Monday" "2" date -u -d 2026-12-01 +%u

runs=0
instants=0
echo "$PLAN" >"$TMP/plan"
while IFS== read -r at scripts; do
  instants=$((instants + 1))
  for s in $scripts; do
    f="$SRC/tests/cli/$s.sh"
    [ -f "$f" ] || { echo "FAIL: no script $f"; FAILS=$((FAILS + 1)); continue; }
    # each script pins its own clock from the faked date, never from ours; libfaketime's
    # own set-up can fail when a semaphore of a finished process of the same pid is left
    # on a busy machine ("sem_open: File exists"): that run is repeated once, nothing else
    for try in 1 2; do
      env -u QUARRY_NOW -u GIT_TEST_DATE_NOW faketime "$(echo "$at" | tr T ' ')" sh "$f" "$Q" \
        >"$TMP/out" 2>&1 </dev/null
      rc=$?
      [ "$rc" != 0 ] && grep -q 'faketime: sem_open' "$TMP/out" || break
      echo "note: $s at $at: libfaketime could not set up ($(grep -m1 'sem_open' "$TMP/out")); run again"
    done
    runs=$((runs + 1))
    if [ "$rc" = 77 ]; then
      echo "skipped: $s skips here ($(tail -n 1 "$TMP/out")), so the suite is not proven at any time"
      exit 77
    elif [ "$rc" != 0 ]; then
      echo "FAIL: $s at $at UTC: exit $rc"
      sed 's/^/  /' "$TMP/out" | tail -n 40
      FAILS=$((FAILS + 1))
    fi
  done
done <"$TMP/plan"
# each script starts at 23:59:50 on its own clock, and the faked clock ticks on (across
# the processes a script starts), so 11_router, which asks for half a minute, crosses
# midnight mid-run
expect_out "a faked clock ticks across processes" "2026-11-25" \
  faketime '2026-11-24 23:59:59' sh -c 'sleep 2; date -u +%Y-%m-%d'
echo "$runs runs at $instants instants"
finish
