# 17_flow.sh: `quarry flow check` and `quarry flow fmt` on the example files of
# docs/examples and on bad input: diagnostics rendered as compilers do and as JSON, the
# exit codes (0 valid, 1 errors, 2 unreadable), --strict, directories (.flow and .sr),
# formatting that is idempotent over every example, and input that must never crash
# (a 10 MB file, deep nesting, tabs mixed with spaces, an unterminated """).
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed"; exit 1; }
EX="$SRC/docs/examples"
cp "$EX/review.flow" "$TMP/review.flow"
cp "$EX/broken.flow" "$TMP/broken.flow"

expect_out "a valid file" "$TMP/review.flow: ok" "$Q" flow check "$TMP/review.flow"
expect_rc "valid: exit 0" 0 "$Q" flow check "$TMP/review.flow"
expect_rc "errors: exit 1" 1 "$Q" flow check "$TMP/broken.flow"
expect_rc "unreadable: exit 2" 2 "$Q" flow check "$TMP/missing.flow"
expect_err "unreadable: one line" "cannot read '$TMP/missing.flow'" "$Q" flow check "$TMP/missing.flow"
expect_rc "unreadable wins over errors" 2 "$Q" flow check "$TMP/broken.flow" "$TMP/missing.flow"
expect_rc "no file: usage" 2 "$Q" flow check
expect_rc "bad option: usage" 2 "$Q" flow check --frobnicate "$TMP/review.flow"

# the compiler layout, exactly
"$Q" flow check "$TMP/broken.flow" > "$TMP/out.txt"
cat > "$TMP/want.txt" <<OUT
error[E0001]: undefined agent 'reviwer'
  --> $TMP/broken.flow:18:15
   |
18 |     run agent reviwer
   |               ^^^^^^^
   = help: did you mean 'reviewer'?
OUT
if ! grep -A5 "undefined agent 'reviwer'" "$TMP/out.txt" | diff "$TMP/want.txt" - >/dev/null; then
  echo "FAIL: rendering of E0001"; grep -A5 "reviwer" "$TMP/out.txt"; FAILS=$((FAILS + 1))
fi
codes=$(grep -o '^error\[E[0-9]*\]\|^warning\[W[0-9]*\]' "$TMP/out.txt" | tr '\n' ' ')
[ "$codes" = "error[E0015] error[E0013] error[E0010] error[E0001] error[E0001] error[E0001] error[E0002] " ] ||
  { echo "FAIL: codes of broken.flow: $codes"; FAILS=$((FAILS + 1)); }
expect_out "summary line" "$TMP/broken.flow: 7 errors, 0 warnings" sh -c "'$Q' flow check '$TMP/broken.flow' | tail -1"

# JSON, as the issue gives it
"$Q" flow check --format json "$TMP/broken.flow" "$TMP/review.flow" > "$TMP/out.json"
expect_out "json" "False E0015 4 48 True 0 7" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["files"]
g = a["diagnostics"][0]
print(a["valid"], g["code"], g["line"], g["column"], b["valid"], len(b["diagnostics"]),
      len(a["diagnostics"]))
' "$TMP/out.json"
expect_out "json severity and help" "error did you mean 'reviewer'?" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = [x for x in d["files"][0]["diagnostics"] if "reviwer" in x["message"]][0]
print(g["severity"], g["help"])
' "$TMP/out.json"

# warnings: valid unless --strict
cat > "$TMP/warn.flow" <<'EOF2'
prompt i: """You review."""
prompt rp: """Review $change"""

agent r:
    instruction i
    prompt rp
    produces out

flow main:
    run agent r
    change = input_prompt
    return out
EOF2
expect_rc "warning: exit 0" 0 "$Q" flow check "$TMP/warn.flow"
expect_rc "warning with --strict: exit 1" 1 "$Q" flow check --strict "$TMP/warn.flow"
expect_out "ordering warning" "warning[W0003]: agent 'r' runs before 'change' can have been set" sh -c "'$Q' flow check '$TMP/warn.flow' | head -1"
expect_out "strict json" "False" python3 -c '
import json, subprocess, sys
out = subprocess.run([sys.argv[1], "flow", "check", "--strict", "--format", "json", sys.argv[2]], capture_output=True, text=True).stdout
print(json.loads(out)["files"][0]["valid"])' "$Q" "$TMP/warn.flow"

# directories: .flow and .sr, recursively, sorted
mkdir -p "$TMP/dir/sub"
cp "$EX/review.flow" "$TMP/dir/a.flow"
cp "$EX/review.flow" "$TMP/dir/sub/b.sr"
echo "not a flow" > "$TMP/dir/notes.txt"
expect_out "directory" "$TMP/dir/a.flow: ok
$TMP/dir/sub/b.sr: ok" "$Q" flow check "$TMP/dir"

# every example checks as its comment says, and fmt is idempotent over all of them
for f in "$EX"/*.flow "$EX"/*.sr; do
  [ -f "$f" ] || continue
  base=$(basename "$f")
  "$Q" flow fmt --stdout "$f" > "$TMP/f1" 2>"$TMP/err" || {
    case $base in broken*) continue ;; esac
    echo "FAIL: fmt $base"; cat "$TMP/err"; FAILS=$((FAILS + 1)); continue; }
  cp "$TMP/f1" "$TMP/f1.flow"
  "$Q" flow fmt --stdout "$TMP/f1.flow" > "$TMP/f2"
  cmp -s "$TMP/f1" "$TMP/f2" || { echo "FAIL: fmt of formatted $base changes it"; diff "$TMP/f1" "$TMP/f2" | head; FAILS=$((FAILS + 1)); }
  # examples in docs are already formatted
  cmp -s "$f" "$TMP/f1" || { echo "FAIL: $base is not in the canonical layout"; diff "$f" "$TMP/f1" | head; FAILS=$((FAILS + 1)); }
  # formatting keeps the diagnostics (the file means the same)
  a=$("$Q" flow check --format json "$f" | python3 -c 'import json,sys; print([(d["code"],d["message"]) for d in json.load(sys.stdin)["files"][0]["diagnostics"]])')
  b=$("$Q" flow check --format json "$TMP/f1.flow" | python3 -c 'import json,sys; print([(d["code"],d["message"]) for d in json.load(sys.stdin)["files"][0]["diagnostics"]])')
  [ "$a" = "$b" ] || { echo "FAIL: fmt changed the diagnostics of $base"; FAILS=$((FAILS + 1)); }
done

# fmt rewrites in place, --check lists what would change
printf 'flow main:\n  x=1+2\n  return x\n' > "$TMP/messy.flow"
expect_out "fmt --check lists" "$TMP/messy.flow" "$Q" flow fmt --check "$TMP/messy.flow"
expect_rc "fmt --check: exit 1" 1 "$Q" flow fmt --check "$TMP/messy.flow"
expect_rc "fmt writes" 0 "$Q" flow fmt "$TMP/messy.flow"
expect_out "formatted" "flow main:
    x = 1 + 2
    return x" cat "$TMP/messy.flow"
expect_rc "fmt --check after: exit 0" 0 "$Q" flow fmt --check "$TMP/messy.flow"
cp "$TMP/broken.flow" "$TMP/broken2.flow"
printf 'flow main:\n    x = (\n' > "$TMP/syntax.flow"
cp "$TMP/syntax.flow" "$TMP/syntax.orig"
expect_rc "fmt refuses syntax errors" 1 "$Q" flow fmt "$TMP/syntax.flow"
cmp -s "$TMP/syntax.flow" "$TMP/syntax.orig" || { echo "FAIL: fmt touched a file with errors"; FAILS=$((FAILS + 1)); }

# bad input: diagnostics with positions, never a crash
printf 'flow main:\n    x = 1\n\ty = 2\n' > "$TMP/tabs.flow"
expect_out "tabs" "error[E0008]: inconsistent indentation: this line is indented with tabs, earlier lines with spaces" sh -c "'$Q' flow check '$TMP/tabs.flow' | head -1"
printf 'prompt p: """never closed\nflow main:\n    x = 1\n' > "$TMP/unterm.flow"
expect_out "unterminated" ' --> '"$TMP"'/unterm.flow:1:11' sh -c "'$Q' flow check '$TMP/unterm.flow' | sed -n 2p"
printf 'flow main:\n    match x:\n        y = 1\n    loop:\n        y = 2\n    on push do\n        y = 3\n    end\npolicy retries:\n    max: 3\n' > "$TMP/foreign.flow"
expect_out "other dialects" "error[E0007]: unsupported construct 'match'
error[E0007]: unsupported construct 'loop'
error[E0007]: unsupported construct 'on'
error[E0007]: unsupported construct 'policy'" sh -c "'$Q' flow check '$TMP/foreign.flow' | grep '^error'"
python3 -c "print('flow main:\n    x = ' + '['*100000)" > "$TMP/deep.flow"
expect_rc "deep nesting: exit 1" 1 "$Q" flow check "$TMP/deep.flow"
expect_out "deep nesting" "error[E0007]: nesting too deep (more than 100 levels)" sh -c "'$Q' flow check '$TMP/deep.flow' | head -1"
python3 - "$TMP/big.flow" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("prompt i: \"\"\"x\"\"\"\nagent a:\n    instruction i\n    prompt i\nflow main:\n")
    i = 0
    while f.tell() < 10 * 1024 * 1024:
        f.write("    v%d = run agent a with \"%s\"\n" % (i, "x" * 40))
        i += 1
    f.write("    return v1 + missing\n")
PY
expect_out "10 MB file" "error[E0002]: variable 'missing' is read but never assigned" sh -c "'$Q' flow check '$TMP/big.flow' | head -1"
python3 -c '
import random, sys
r = random.Random(17)
sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(10 * 1024 * 1024)))' > "$TMP/random.flow"
expect_rc "10 MB of random bytes: exit 1" 1 "$Q" flow check "$TMP/random.flow"
expect_rc "random bytes: fmt refuses" 1 "$Q" flow fmt --stdout "$TMP/random.flow"
finish
