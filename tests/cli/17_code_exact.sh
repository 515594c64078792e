# 17_code_exact.sh: how exact the code graph is on a real C tree, quarry's own src/ and
# include/ (copied into a fresh git repository): definitions against universal-ctags,
# calls against cscope, cflow and clang's index, includes against clang's. Prints the
# precision/recall table of bench/code/exactness.py and fails when an F1 falls below its
# floor in bench/code/floors.txt. The reference tools come from scripts/deps.sh --test.
. "$(dirname "$0")/lib.sh"

for tool in ctags cscope cflow c-index-test python3 git; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "FAIL: '$tool' is not installed (sh scripts/deps.sh --test installs it)"
    exit 1
  fi
done
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
mkdir -p "$HOME" "$TMP/tree"
cp -r "$SRC/src" "$SRC/include" "$TMP/tree/"
git -C "$TMP/tree" init -q
git -C "$TMP/tree" add -A
git -C "$TMP/tree" -c user.name=T -c user.email=t@example.com -c commit.gpgsign=false commit -qm tree
if ! python3 "$SRC/bench/code/exactness.py" "$Q" "$TMP/tree" -I include -I src \
    --floors "$SRC/bench/code/floors.txt"; then
  FAILS=$((FAILS + 1))
fi
finish
