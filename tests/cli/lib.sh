# lib.sh: helpers for the CLI test scripts. Each script is run as `sh NN_name.sh QUARRY`
# by ctest; it sources this file, runs commands and compares what they print and return.
Q=${1:?usage: sh test.sh path/to/quarry}
SRC=${QUARRY_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TMP=$(mktemp -d)
trap 'llm_unserve; rm -rf "$TMP"' EXIT
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

# llm_serve SCRIPT.json: starts the scripted model server (tests/llm/model_server.py, real
# HTTP on 127.0.0.1) on a free port, logging each request to $TMP/log.jsonl, and points
# quarry at it (QUARRY_LLM_URL, QUARRY_LLM_MODEL). Sets SERVER_PID and PORT; a server that
# does not start fails the script. llm_unserve stops it (safe to call twice); a script
# that serves puts llm_unserve in its EXIT trap.
SERVER_PID=
llm_serve() {
  llm_unserve
  rm -f "$TMP/port" "$TMP/log.jsonl"
  : >"$TMP/log.jsonl"
  python3 "$SRC/tests/llm/model_server.py" --script "$1" --log "$TMP/log.jsonl" \
    --port-file "$TMP/port" 2>"$TMP/server.err" &
  SERVER_PID=$!
  i=0
  while [ ! -s "$TMP/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  PORT=$(cat "$TMP/port" 2>/dev/null)
  [ -n "$PORT" ] || { echo "FAIL: the model server did not start"; cat "$TMP/server.err"; exit 1; }
  export QUARRY_LLM_URL="http://127.0.0.1:$PORT/v1" QUARRY_LLM_MODEL=test-model
}
llm_unserve() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=
}

# llm_script OUT STEP...: writes a model server script to OUT; each STEP is a JSON step
# object written inline ({"status": 429}, {"text": "..."}) or a file whose text is a reply.
llm_script() {
  out=$1; shift
  python3 - "$out" "$@" <<'PY'
import json, sys
steps = []
for a in sys.argv[2:]:
    steps.append(json.loads(a) if a.startswith("{") else {"text": open(a).read()})
json.dump({"responses": steps}, open(sys.argv[1], "w"))
PY
}

# npm_install DIR PACKAGE WHAT: installs DIR's locked npm dependencies (npm ci) into
# DIR/node_modules unless PACKAGE is already there. It installs into a directory of its
# own and renames it into place, so two runs at once (the release and the sanitizer
# build) never see a half-installed tree. A failed install fails the script, naming WHAT.
npm_install() {
  [ -f "$1/node_modules/$2/package.json" ] && return 0
  stage="$1/.install.$$"
  mkdir -p "$stage"
  cp "$1/package.json" "$1/package-lock.json" "$stage/"
  if ! (cd "$stage" && npm ci --no-audit --no-fund --loglevel=error >"$TMP/npm.log" 2>&1); then
    echo "FAIL: npm ci of $3 failed:"; sed 's/^/  /' "$TMP/npm.log"
    rm -rf "$stage"
    exit 1
  fi
  [ -d "$1/node_modules" ] || mv "$stage/node_modules" "$1/node_modules"
  rm -rf "$stage" # (if another run's tree won the race, ours is dropped here)
}
