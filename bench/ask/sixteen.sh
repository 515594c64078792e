# sixteen.sh: part 3 of bench/ask/run.sh (sourced by it: Q, PREV_Q, TMP, root and here
# are its own): issue 25's sixteen questions, the previous release against this binary
# in the same run. See run.sh's head for what it measures and what it cannot.
echo
echo "== issue 25's sixteen questions (bench/ask/sixteen.tsv; scripted model, OpenAI wire)"
FX="$TMP/fixture"
"$here/fixture.sh" "$FX" >/dev/null 2>&1 || { echo "run.sh: the fixture could not be made" >&2; exit 1; }
Q16="$here/replies/q16"
# ask16 BINARY QUESTION OUT REPLY...: asks QUESTION of the fixture with the replies
# scripted, at most as many calls as replies; OUT.log holds the requests, OUT.json the
# answer, OUT.err stderr, OUT.rc the exit status
ask16() {
  local bin=$1 q=$2 out=$3; shift 3
  python3 - "$out.script" "$@" <<'PY'
import json, sys
json.dump({"responses": [{"text": open(a).read()} for a in sys.argv[2:]]}, open(sys.argv[1], "w"))
PY
  rm -f "$out.port" "$out.log"
  python3 "$root/tests/llm/model_server.py" --script "$out.script" --log "$out.log" \
    --port-file "$out.port" 2>/dev/null &
  local srv=$!
  for _ in $(seq 200); do [ -s "$out.port" ] && break; sleep 0.05; done
  (cd "$FX" && QUARRY_NOW=2025-06-20T12:00:00Z TZ=UTC QUARRY_LLM_MAX_RETRIES=0 \
    QUARRY_LLM_URL="http://127.0.0.1:$(cat "$out.port")/v1" QUARRY_LLM_MODEL=bench \
    "$bin" ask "$q" --no-router --format json --max-calls $# >"$out.json" 2>"$out.err")
  echo $? >"$out.rc"
  kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
  touch "$out.log"
}
n=0
while IFS=$'\t' read -r id set needs q old new; do
  case $id in ''|'#'*) continue ;; esac
  n=$((n + 1))
  if [ -n "$PREV_Q" ]; then
    # shellcheck disable=SC2086
    ask16 "$PREV_Q" "$q" "$TMP/q16.$id.prev" $(for f in $old; do echo "$Q16/$f"; done)
  fi
  ask16 "$Q" "$q" "$TMP/q16.$id.new" "$Q16/$new"
  if [ "$old" != "$new" ]; then
    # this binary on the previous release's path too: what its Compiler, Fetcher and
    # Evaluator prompts cost, and a figure that holds before dsl25 is merged
    # shellcheck disable=SC2086
    ask16 "$Q" "$q" "$TMP/q16.$id.newold" $(for f in $old; do echo "$Q16/$f"; done)
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$set" "$needs" "$q" "$old" >>"$TMP/q16.list"
done <"$here/sixteen.tsv"
python3 - "$TMP" "${PREV_Q:-}" <<'PY'
import json, os, sys
tmp, have_prev = sys.argv[1], bool(sys.argv[2])
TARGET = {"new": (10, 25000), "earlier": (8, 18000)}
def load(base):
    if not os.path.exists(base + ".rc"):
        return None
    reqs = [json.loads(l) for l in open(base + ".log") if l.strip()]
    rc = int(open(base + ".rc").read().strip() or 1)
    chars = sum(len(m.get("content") or "") for r in reqs for m in r["body"]["messages"])
    try:
        ans = json.load(open(base + ".json"))
    except Exception:
        ans = None
    err = open(base + ".err").read().strip().splitlines()
    return {"calls": len(reqs), "tokens": chars // 4, "rc": rc, "answer": ans,
            "err": err[-1] if err else "", "reqs": reqs}
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(tmp, "q16.list"))]
print("%-3s %-46s %4s %8s %4s %8s %8s  %s" % ("id", "question", "prev", "prev tok", "new",
      "new tok", "old path", "new binary"))
tot = {}
roles = {}
for id_, set_, needs, q, old in rows:
    p = load(os.path.join(tmp, "q16.%s.prev" % id_)) if have_prev else None
    n = load(os.path.join(tmp, "q16.%s.new" % id_))
    o = load(os.path.join(tmp, "q16.%s.newold" % id_))
    if n["rc"] == 0:
        status = "ran"
        if p and p["rc"] == 0:
            same = json.dumps(p["answer"].get("findings"), sort_keys=True) == \
                   json.dumps(n["answer"].get("findings"), sort_keys=True)
            status += ", same findings as prev" if same else ", findings differ from prev"
    elif needs == "dsl25":
        status = "needs dsl25 (reply refused here)"
    else:
        status = "FAILED: " + n["err"][:60]
    if p and p["rc"] != 0:
        status += "; prev FAILED: " + p["err"][:50]
    if o and o["rc"] != 0:
        status += "; old path FAILED: " + o["err"][:50]
    print("%-3s %-46s %4s %8s %4d %8d %8s  %s" % (id_, q[:46], p["calls"] if p else "-",
          p["tokens"] if p else "-", n["calls"], n["tokens"],
          "%d/%d" % (o["calls"], o["tokens"]) if o else "-", status))
    if o:
        t = tot.setdefault((set_, "new, old path"), [0, 0])
        t[0] += o["calls"]
        t[1] += o["tokens"]
    elif set_ == "new":
        t = tot.setdefault((set_, "new, old path"), [0, 0])
        t[0] += n["calls"]
        t[1] += n["tokens"]
    for who, r in (("prev", p), ("new", n)):
        if r:
            t = tot.setdefault((set_, who), [0, 0])
            t[0] += r["calls"]
            t[1] += r["tokens"]
    for who, r in (("prev", p), ("new", n), ("new", o)):
        if not r:
            continue
        for req in r["reqs"]:
            sysm = req["body"]["messages"][0]["content"]
            role = next((w for w in ("Architect", "Compiler", "Fetcher", "Evaluator")
                         if "You are the " + w in sysm), "?")
            roles.setdefault((who, role), set()).add(len(sysm))
print()
for set_ in ("earlier", "new"):
    calls, toks = TARGET[set_]
    for who in ("prev", "new", "new, old path"):
        if (set_, who) not in tot:
            continue
        c, t = tot[(set_, who)]
        ok = c <= calls and t <= toks
        print("%-7s %-13s: %2d calls, ~%6d prompt tokens   target <= %d calls, <= %dK tokens: %s"
              % (set_, who, c, t, calls, toks // 1000, "met" if ok else "NOT met"))
print()
print("system prompt characters per role (distinct sizes seen):")
for role in ("Architect", "Compiler", "Fetcher", "Evaluator"):
    line = "  %-9s" % role
    for who in ("prev", "new"):
        s = sorted(roles.get((who, role), []))
        line += "  %s: %s" % (who, ", ".join(map(str, s)) if s else "-")
    print(line)
PY
echo "(prev: the previous release with the replies it needed; new: this binary, one query"
echo " per question; old path: this binary with the previous release's replies (calls/tok),"
echo " what it costs where its DSL cannot say the question in one query (before dsl25)."
echo " tok: all prompt characters / 4, as the scripted server counts them, not a tokenizer."
echo " A scripted model replays fixed replies: this shows the prompts' sizes and that one"
echo " program per question exists and runs, not how many calls a real model would need."
echo " 'needs dsl25': the reply uses issue 25's DSL functions, which this binary lacks.)"
