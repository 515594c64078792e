# 24_router_phrasings.sh: tier 1 on phrasing sets it was not written from (issue 13):
# bench/router/set1.tsv (236 answerable questions and 42 that need judgement, written
# before the router was changed for them) and bench/router/heldout.tsv (50 and 10,
# never tuned on). check.py builds a fixture repository with git (fixture.py: accents,
# bots, merges, docs/ and tests/), asks every question with "now" pinned, and checks
# each answer against git. Fails on any wrong answer, any judgement question answered,
# or a right rate under the floor (the rate reached, minus a little).
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null 2>&1 || { echo "FAIL: git is needed"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed"; exit 1; }
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER
mkdir -p "$HOME"
python3 "$SRC/bench/router/fixture.py" "$TMP/repo" || { echo "FAIL: fixture"; exit 1; }
for set in "set1.tsv 97" "heldout.tsv 90"; do
  name=${set% *} floor=${set#* }
  if ! python3 "$SRC/bench/router/check.py" "$Q" "$SRC/bench/router/$name" --repo "$TMP/repo" \
       --floor "$floor" >"$TMP/out" 2>&1; then
    echo "FAIL: $name"; sed 's/^/  /' "$TMP/out"
    FAILS=$((FAILS + 1))
  fi
done
finish
