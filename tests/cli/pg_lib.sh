# pg_lib.sh: a throwaway PostgreSQL 15 server for a CLI test script (issue 26, part 4).
# Source it after lib.sh, then call pg_start: it makes a cluster in a mktemp directory
# (initdb, trust authentication, no TCP: only a Unix socket in that directory), starts it
# as the `postgres` user (the server refuses to run as root, and the tests run as root),
# and sets PG_SOCK (the socket directory), PG_PORT (a random number, used only to name
# the socket) and PG_URL (postgresql://postgres@/postgres?host=PG_SOCK&port=PG_PORT).
# pg_stop stops it and removes the directory (pg_server_stop and pg_server_start below
# stop and restart it with its data, for the fault tests); pg_start puts it in the EXIT trap, so a failing or
# interrupted script leaves no server behind.
#
# A machine where PostgreSQL 15 is not installed gets it from scripts/deps.sh --test when
# run as root; a script that still cannot install it exits 77 (skipped) and says why.
# Nothing else skips: an installed server that will not make its cluster or start is a
# failure (exit 1, with the end of its log).

PG_DIR=
PG_BIN=/usr/lib/postgresql/15/bin

pg_skip() {
  echo "SKIP: $1"
  [ -n "$PG_DIR" ] && [ -f "$PG_DIR/log" ] && sed 's/^/  server log: /' "$PG_DIR/log" | tail -n 20
  exit 77
}

pg_fail() {
  echo "FAIL: $1"
  [ -n "$PG_DIR" ] && [ -f "$PG_DIR/log" ] && sed 's/^/  server log: /' "$PG_DIR/log" | tail -n 20
  exit 1
}

pg_stop() {
  [ -n "$PG_DIR" ] || return 0
  if [ -f "$PG_DIR/data/postmaster.pid" ]; then
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop \
      >/dev/null 2>&1
  fi
  rm -rf "$PG_DIR"
  PG_DIR=
}

pg_start() {
  if [ ! -x "$PG_BIN/initdb" ] && [ "$(id -u)" = 0 ]; then
    sh "$SRC/scripts/deps.sh" --test >/dev/null 2>&1 || true
  fi
  [ -x "$PG_BIN/initdb" ] || pg_skip "PostgreSQL 15 ($PG_BIN/initdb) is not installed and could not be (run scripts/deps.sh --test as root)"
  command -v runuser >/dev/null 2>&1 || pg_skip "runuser (util-linux) is missing: cannot start PostgreSQL as the postgres user"
  id postgres >/dev/null 2>&1 || pg_skip "there is no postgres user (the postgresql-15 package creates it)"
  if [ "$(id -u)" != 0 ]; then
    # not root: run the server as ourselves
    PG_RUN=
  else
    PG_RUN="runuser -u postgres --"
  fi
  PG_DIR=$(mktemp -d /tmp/quarry-pg-XXXXXX) || pg_fail "mktemp failed"
  trap 'pg_stop; llm_unserve; rm -rf "$TMP"' EXIT
  trap 'exit 1' INT TERM HUP
  [ -n "$PG_RUN" ] && chown postgres "$PG_DIR"
  chmod 700 "$PG_DIR"
  PG_SOCK=$PG_DIR/sock
  mkdir "$PG_SOCK" && { [ -z "$PG_RUN" ] || chown postgres "$PG_SOCK"; }
  # a random number: only the socket's name (.s.PGSQL.PORT) depends on it
  PG_PORT=$(( (($$ * 7919) + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ')) % 20000 + 40000 ))
  $PG_RUN "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres -E UTF8 --locale=C \
    --no-sync >"$PG_DIR/initdb.log" 2>&1 ||
    { cat "$PG_DIR/initdb.log"; pg_fail "initdb failed"; }
  pg_server_start || pg_fail "the PostgreSQL server did not start"
  PG_URL="postgresql://postgres@/postgres?host=$PG_SOCK&port=$PG_PORT"
}

# pg_server_start / pg_server_stop: start the server of pg_start again, on the same socket
# with the same data, and stop it (fast: open connections are cut, as when a database
# goes down under its clients). PG_FSYNC=on keeps fsync on (the benchmarks: a test needs
# no durability across a machine crash, so by default it is off).
pg_server_start() {
  $PG_RUN "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w -t 60 \
    -o "-c listen_addresses= -k $PG_SOCK -p $PG_PORT -c fsync=${PG_FSYNC:-off}" start >/dev/null 2>&1
}
pg_server_stop() {
  $PG_RUN "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 60 stop >/dev/null 2>&1
}

# pg_createdb NAME: a fresh database on the server; prints its URL.
pg_createdb() {
  pg_sql postgres "CREATE DATABASE \"$1\"" >/dev/null || { echo "FAIL: CREATE DATABASE $1"; exit 1; }
  echo "postgresql://postgres@/$1?host=$PG_SOCK&port=$PG_PORT"
}

# pg_sql DB SQL: runs SQL in database DB and prints the rows unaligned (psql -At).
pg_sql() {
  "$PG_BIN/psql" -X -At -q -h "$PG_SOCK" -p "$PG_PORT" -U postgres -d "$1" -c "$2"
}

# pg_test_start: what a test of the shared index starts with: python3 present, a home of
# its own, no database or memory setting inherited from the caller, fail() counting into
# FAILS, and the server started (pg_start).
pg_test_start() {
  command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh --test)"; exit 1; }
  export HOME="$TMP/home" TZ=UTC LC_ALL=C
  unset QUARRY_DATABASE_URL QUARRY_MEMORY PGPASSWORD PGUSER PGHOST PGPORT PGDATABASE
  mkdir -p "$HOME"
  pg_start
}
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# pg_index URL REPO: the schema made on URL, REPO enqueued and indexed by one worker
# (its output in $TMP/w.out); a step that fails is a FAIL.
pg_index() {
  "$Q" db init --url "$1" >/dev/null || fail "db init"
  "$Q" index --enqueue --repo "$2" --store "$1" >/dev/null || fail "enqueue"
  "$Q" index --worker --store "$1" >"$TMP/w.out" 2>&1 || fail "worker: $(cat "$TMP/w.out")"
}

# pg_rows_py: writes $TMP/rows.py, run as `python3 $TMP/rows.py LOCAL SHARED NAME`: the
# shared tool's rows of repository NAME (its :repo taken off) equal the local tool's, in
# order; else it prints the rows only one side has and exits 1.
pg_rows_py() {
  cat >"$TMP/rows.py" <<'PY'
import json, sys
local = json.load(open(sys.argv[1]))
shared = [r for r in json.load(open(sys.argv[2])) if r.pop("repo") == sys.argv[3]]
if local != shared:
    print("local %d rows, shared %d" % (len(local), len(shared)))
    for r in local:
        if r not in shared: print(" only local: ", json.dumps(r, ensure_ascii=False))
    for r in shared:
        if r not in local: print(" only shared:", json.dumps(r, ensure_ascii=False))
    if sorted(map(str, local)) == sorted(map(str, shared)): print(" (the same rows in another order)")
    sys.exit(1)
PY
}
