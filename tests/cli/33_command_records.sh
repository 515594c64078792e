# 33_command_records.sh: the command records (src/cli/commands.c) tell the truth. Walks
# the table as `quarry help --json` lists it: every command and subcommand's --help exits
# 0 on stdout and names its options, and so does its man page (`quarry help --man`); a misspelt option exits 2 with one suggestion; `quarry complete` offers
# each record's options, and each offered option, fed back to its command, is not refused
# as unknown (a parser that rejects what completion offers fails here); enum values
# offered are accepted; unknown commands and subcommands get a suggestion.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" LC_ALL=C
unset QUARRY_MEMORY QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_MEMORY_AGENTS
mkdir -p "$HOME" "$TMP/work"
cd "$TMP/work" || exit 1

"$Q" help --json > "$TMP/records.json" || { echo "FAIL: help --json"; exit 1; }
python3 - "$TMP/records.json" > "$TMP/records.tsv" <<'PY' || { echo "FAIL: help --json is not the listing"; exit 1; }
import json, sys
recs = json.load(open(sys.argv[1]))
assert len(recs) > 20, len(recs)
for r in recs:
    opts = " ".join(o["name"] for o in r["options"])
    print("%s\t%s\t%s" % (r["path"], opts, "|".join(o["name"] + "=" + ",".join(o["values"]) for o in r["options"] if o["values"])))
PY
n=$(wc -l < "$TMP/records.tsv")
[ "$n" -gt 20 ] || { echo "FAIL: only $n records"; FAILS=$((FAILS + 1)); }

# a word of a path with a letter doubled: "index" -> "indeex"
typo() { printf '%s' "$1" | sed 's/\(.\)\(.\)$/\1\1\2/'; }

while IFS="$(printf '\t')" read -r path opts enums; do
  # shellcheck disable=SC2086
  set -- $path
  # --help: exit 0, the usage on stdout
  "$Q" "$@" --help >"$TMP/out" 2>"$TMP/err"; rc=$?
  if [ "$rc" != 0 ] || ! grep -q "usage" "$TMP/out"; then
    echo "FAIL: quarry $path --help: exit $rc"; head -3 "$TMP/out" "$TMP/err"; FAILS=$((FAILS + 1))
  fi
  # a man page made from the record, naming the command and each of its options
  "$Q" help --man "$@" >"$TMP/man" 2>"$TMP/err"; rc=$?
  if [ "$rc" != 0 ] || ! head -1 "$TMP/man" | grep -q '^\.TH QUARRY-'; then
    echo "FAIL: quarry help --man $path: exit $rc"; head -3 "$TMP/man" "$TMP/err"; FAILS=$((FAILS + 1))
  fi
  for o in $opts; do
    grep -q -- "$o" "$TMP/man" || { echo "FAIL: the man page of $path lacks $o"; FAILS=$((FAILS + 1)); }
  done
  # the help names every option the record declares
  for o in $opts; do
    grep -q -- "$o" "$TMP/out" || { echo "FAIL: quarry $path --help does not name $o"; FAILS=$((FAILS + 1)); }
  done
  # an option misspelt: exit 2, a suggestion, and the command named
  case $path in complete|tool|"code query") ;; *) # their options are a tool's parameters
    first=$(printf '%s' "$opts" | cut -d' ' -f1)
    [ -n "$first" ] || first=--help
    bad=$(typo "$first")
    timeout 20 "$Q" "$@" "$bad" x </dev/null >"$TMP/out" 2>"$TMP/err"; rc=$?
    if [ "$rc" != 2 ] || ! grep -qF "unknown option '$bad' (did you mean '$first'?)" "$TMP/err"; then
      echo "FAIL: quarry $path $bad: exit $rc (want 2 and a suggestion of $first)"; head -3 "$TMP/err"
      FAILS=$((FAILS + 1))
    fi ;;
  esac
  # completion offers exactly the record's options (and --help)
  got=$("$Q" complete "$@" -- | sort | tr '\n' ' ')
  want=$(printf '%s\n' $opts --help | sort | tr '\n' ' ')
  if [ "$got" != "$want" ]; then
    echo "FAIL: quarry complete $path --: got '$got', want '$want'"; FAILS=$((FAILS + 1))
  fi
  # every offered option is accepted by its command's parser
  for o in $("$Q" complete "$@" --); do
    [ "$o" = --help ] && continue
    [ "$path" = complete ] && continue
    timeout 20 "$Q" "$@" "$o" </dev/null >"$TMP/out" 2>"$TMP/err"
    if grep -q "unknown option\|unknown argument" "$TMP/err"; then
      echo "FAIL: quarry $path offers $o, which it refuses:"; head -2 "$TMP/err"; FAILS=$((FAILS + 1))
    fi
  done
  # the values offered for an option with a fixed set are the ones it takes
  for e in $(printf '%s' "$enums" | tr '|' ' '); do
    o=${e%%=*}
    for v in $("$Q" complete "$@" "$o" ""); do
      timeout 20 "$Q" "$@" "$o" "$v" </dev/null >"$TMP/out" 2>"$TMP/err"
      if grep -q "unknown format\|must be one of\|unknown option" "$TMP/err"; then
        echo "FAIL: quarry $path offers $o $v, which it refuses:"; head -2 "$TMP/err"; FAILS=$((FAILS + 1))
      fi
    done
  done
done < "$TMP/records.tsv"

# what the old help scraping offered and the command refused
expect_out "index does not offer words of its prose" "" sh -c "'$Q' complete index --num"
expect_out "completion of a command" "mcp" "$Q" complete mc
expect_out "completion of a subcommand" "index" "$Q" complete code ind
expect_out "completion of an enum's values" "dot
svg" "$Q" complete code graph x --format ""
expect_rc "code index --help exits 0" 0 "$Q" code index --help
expect_err "an unknown subcommand gets a suggestion" "quarry flow: unknown subcommand 'chek' (did you mean 'check'?)" "$Q" flow chek
expect_err "code too" "quarry code: unknown subcommand 'dunp' (did you mean 'dump'?)" "$Q" code dunp
expect_err "help of a subcommand" "usage: quarry code graph" sh -c "'$Q' help code graph >&2"
expect_out "--format json errors from a record's parser" '{"error":{"kind":"usage","message":"unknown option '"'"'--refs'"'"' (did you mean '"'"'--ref'"'"'?); see '"'"'quarry code index --help'"'"'"}}' \
  sh -c "'$Q' code index --format json --refs x 2>&1"
expect_err "a bound of a record's parameter" "quarry code graph: parameter 'depth' must be at most 64, got 99" "$Q" code graph x --depth 99
expect_err "an enum's values, in the commands' words" "quarry tools: unknown format 'xml': expected text, json, mcp, openai, openai-strict or anthropic" "$Q" tools --format xml
expect_rc "a value that does not parse: exit 2" 2 "$Q" code graph x --depth deep
expect_rc "a missing value: exit 2" 2 "$Q" index --format
expect_out "a short option of a record" "3" "$Q" lisp -e '(+ 1 2)'
expect_err "a second program" "quarry lisp: give one program: -e EXPR, a FILE or '-'" "$Q" lisp a b
expect_err "--run-tests takes files" "quarry lisp: --run-tests needs at least one file" "$Q" lisp --run-tests
finish
