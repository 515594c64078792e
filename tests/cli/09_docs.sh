# 09_docs.sh: runs every example in docs/*.md: in ```console blocks, a line starting
# with "$ " is a command ("quarry" meaning the binary under test), and the lines after it
# are its expected stdout. The docs write their scratch files under /tmp for the reader;
# here every "/tmp/" in a command and in its expected output becomes this run's own
# mktemp directory, so two runs at once (or a reader's leftovers) cannot collide. Commands
# run in the source tree, so examples can name the files under docs/examples.
# QUARRY_DOCS_FENCE and QUARRY_DOCS_FILES (default: console, docs/*.md) let a test that
# sets up what its examples need (51_team_docs.sh: a PostgreSQL server) run another
# fence's blocks with this same runner.
. "$(dirname "$0")/lib.sh"

W=$(mktemp -d)
trap 'rm -rf "$TMP" "$W"' EXIT

FENCE=${QUARRY_DOCS_FENCE:-console}
for doc in ${QUARRY_DOCS_FILES:-"$SRC"/docs/*.md}; do
  awk -v out="$TMP/cases" -v w="$W/" -v fence='^```'"$FENCE" '
    { gsub("/tmp/", w) }
    $0 ~ fence { inblock = 1; next }
    /^```/ { if (inblock) { inblock = 0; if (cmd != "") print "END" >> out; cmd = "" } next }
    inblock && /^\$ / { if (cmd != "") print "END" >> out; cmd = substr($0, 3); print "CMD " cmd >> out; next }
    inblock { print "OUT " $0 >> out }
  ' "$doc"
done
[ -f "$TMP/cases" ] || { echo "no examples found"; exit 1; }

mkdir -p "$TMP/bin"
ln -s "$Q" "$TMP/bin/quarry"
n=0
while IFS= read -r line; do
  case $line in
    "CMD "*) cmd=${line#CMD }; want="" ; have_want=0 ;;
    "OUT "*) if [ $have_want = 1 ]; then want="$want
${line#OUT }"; else want=${line#OUT }; have_want=1; fi ;;
    END)
      n=$((n + 1))
      got=$(cd "$SRC" && PATH="$TMP/bin:$PATH" sh -c "$cmd" 2>/dev/null)
      if [ "$got" != "$want" ]; then
        echo "FAIL: docs example: $cmd"; echo "  want: $want"; echo "  got:  $got"
        FAILS=$((FAILS + 1))
      fi ;;
  esac
done < "$TMP/cases"
echo "$n examples"
finish
