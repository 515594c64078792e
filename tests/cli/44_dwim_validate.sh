# 44_dwim_validate.sh: validate finds the repository's test command by the files present
# (make test, make check, ctest, npm test, cargo test, go test ./..., pytest, then make -k
# and compile_commands.json), runs one a line names only when it is one of those or the
# configured check, reads check from .quarry.toml at the top or under [dwim] and warns
# on unknown keys, exits 1 when the check fails, and shows identical diagnostics once.
# Also: read's header names the lines shown; a SEARCH block matches a unique piece of a
# line, and says so when it does not.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
if ! command -v cc >/dev/null || ! command -v make >/dev/null; then
  echo "skip: no cc or make"; exit 77
fi
newrepo() {
  git init -q -b main "$1"
  git -C "$1" config user.name T
  git -C "$1" config user.email t@example.com
}

# ---- discovery: every runner whose files are present, best first ----
A="$TMP/all"
newrepo "$A"
printf 'all:\n\ttrue\ntest:\n\ttrue\ncheck: test\ninstall:\n\ttrue\n' > "$A/Makefile"
mkdir -p "$A/build"
: > "$A/build/CTestTestfile.cmake"
printf '{"name": "x", "scripts": {"test": "node -e 0"}}\n' > "$A/package.json"
printf '[package]\nname = "x"\n' > "$A/Cargo.toml"
printf 'module x\n' > "$A/go.mod"
printf '[pytest]\n' > "$A/pytest.ini"
cd "$A" || exit 1
expect_err "every runner named, best first" "quarry: usage: 'make install' is not a check of this repository: validate runs 'make test', 'make check', 'ctest --test-dir build --output-on-failure', 'npm test', 'cargo test', 'go test ./...', 'pytest -q', 'make -k'" \
  "$Q" dwim "validate make install"
expect_rc "a target that is not a check: exit 2" 2 "$Q" dwim "validate make install"
expect_err "no shell line" "'make test; rm -rf x' is not a check of this repository" "$Q" dwim "validate make test; rm -rf x"
expect_out "validate make check runs make check" "make check: ok (exit 0), 0 errors, 0 warnings" "$Q" dwim "validate make check"
expect_out "a build target the Makefile has" "make all: ok (exit 0), 0 errors, 0 warnings" "$Q" dwim "validate make all"
expect_out "with -k too" "make -k test: ok (exit 0), 0 errors, 0 warnings" "$Q" dwim "validate make -k test"
expect_out "the parser reads it in the run band" "run 0.95 validate -> validate 'make test' {:command \"make test\"}" "$Q" dwim parse "validate make test"
# each runner alone, by its files
one() { # one FILE CONTENT: a repository holding only that file; prints what validate offers
  D="$TMP/one$$_$(echo "$1" | tr '/.' '__')"
  newrepo "$D"
  mkdir -p "$(dirname "$D/$1")"
  printf '%b' "$2" > "$D/$1"
  (cd "$D" && "$Q" dwim "validate cargo build" 2>&1 | sed "s/.*validate runs //")
}
expect_out "Makefile with test:" "'make test', 'make -k'" one Makefile 'test:\n\ttrue\n'
expect_out "Makefile with check::" "'make check', 'make -k'" one Makefile 'check::\n\ttrue\n'
expect_out "a variable is not a target" "'make -k'" one Makefile 'test := 1\nall:\n\ttrue\n'
expect_out "GNUmakefile" "'make test', 'make -k'" one GNUmakefile 'x test y:\n\ttrue\n'
expect_out "CTest in the top directory" "'ctest --output-on-failure'" one CTestTestfile.cmake ''
expect_out "npm with a test script" "'npm test'" one package.json '{"scripts": {"test": "x"}}'
expect_out "npm without one" "nothing here: set check = \"...\" in .quarry.toml" one package.json '{"scripts": {"build": "x"}}'
expect_out "cargo" "'cargo test'" one Cargo.toml '[package]\n'
expect_out "go" "'go test ./...'" one go.mod 'module x\n'
expect_out "pytest.ini" "'pytest -q'" one pytest.ini '[pytest]\n'
expect_out "pyproject with pytest" "'pytest -q'" one pyproject.toml '[tool.pytest.ini_options]\n'
expect_out "pyproject without" "nothing here: set check = \"...\" in .quarry.toml" one pyproject.toml '[project]\nname = "x"\n'
expect_out "setup.cfg" "'pytest -q'" one setup.cfg '[tool:pytest]\n'
expect_out "conftest.py" "'pytest -q'" one conftest.py ''
expect_out "compile_commands.json" "'cc -fsyntax-only'" one compile_commands.json '[]'

# ---- running them, exit status 1 when the check fails ----
M="$TMP/make"
newrepo "$M"
cd "$M" || exit 1
printf 'test:\n\t@echo "t.c:3: error: expected 2, got 3"; false\n' > Makefile
expect_out "no check configured: make test is found" "make test: failed (exit 2), 1 error, 0 warnings
t.c:3: error: expected 2, got 3" sh -c "'$Q' dwim validate | sed -n 1,2p"
expect_rc "a failed check exits 1" 1 "$Q" dwim validate
printf 'test:\n\ttrue\n' > Makefile
expect_rc "a passing check exits 0" 0 "$Q" dwim validate
if command -v npm >/dev/null; then
  N="$TMP/npm"
  newrepo "$N"
  printf '{"name": "x", "version": "1.0.0", "scripts": {"test": "echo npm-test-ran && exit 3"}}\n' > "$N/package.json"
  expect_out "npm test runs" "npm test: failed (exit 3), 0 errors, 0 warnings" sh -c "cd '$N' && '$Q' dwim validate | head -1"
  expect_out "its output's tail" "1" sh -c "cd '$N' && '$Q' dwim validate | grep -c '^npm-test-ran'"
fi
if command -v ctest >/dev/null; then
  C="$TMP/ctest"
  newrepo "$C"
  mkdir -p "$C/build"
  printf 'add_test(passes "true")\n' > "$C/build/CTestTestfile.cmake"
  expect_out "ctest runs in build/" "ctest --test-dir build --output-on-failure: ok (exit 0), 0 errors, 0 warnings" \
    sh -c "cd '$C' && '$Q' dwim validate | head -1"
fi

# ---- .quarry.toml: check at the top or under [dwim]; unknown keys warned ----
printf 'test:\n\ttrue\ncheck:\n\techo checked\n' > Makefile
printf '[dwim]\ncheck = "make check"\n' > .quarry.toml
expect_out "[dwim] check" "make check: ok (exit 0), 0 errors, 0 warnings" "$Q" dwim validate
printf 'check = ["make", "check"]\n' > .quarry.toml
expect_out "top-level check, an array" "make check: ok (exit 0), 0 errors, 0 warnings" "$Q" dwim validate
printf 'check = "make test"\n[dwim]\ncheck = "make check"\n' > .quarry.toml
expect_out "[dwim] wins over the top" "make check: ok (exit 0), 0 errors, 0 warnings" "$Q" dwim validate
printf 'chek = "make check"\n[dwim]\ncheck = "make check"\ntimeout = 3\n[llm]\nmodel = "m"\n' > .quarry.toml
expect_out "unknown keys warned, known ones not" "warning: .quarry.toml: unknown key 'chek' (ignored; known: check, [dwim] check, [llm] ...)
warning: .quarry.toml: unknown key 'timeout' in [dwim] (ignored; known: check)
make check: ok (exit 0), 0 errors, 0 warnings" "$Q" dwim validate
printf 'check = 3\n' > .quarry.toml
expect_out "a check of another type" "warning: .quarry.toml: check must be a string or an array of strings; ignored
make test: ok (exit 0), 0 errors, 0 warnings" "$Q" dwim validate
printf '[dwim]\ncheck = "make check"\n' > .quarry.toml
expect_out "a line may name the configured check or a discovered one" "make test: ok (exit 0), 0 errors, 0 warnings" "$Q" dwim "validate make test"
rm .quarry.toml

# ---- identical diagnostics once, with their count ----
D="$TMP/dedup"
newrepo "$D"
cd "$D" || exit 1
printf 'static int kv_size = ;\n' > kv.h
for f in a b c; do printf '#include "kv.h"\nint %s(void) { return 0; }\n' "$f" > "$f.c"; done
printf 'all: a b c\na b c:\n\tcc -fsyntax-only $@.c\n.PHONY: a b c\n' > Makefile
"$Q" dwim validate > "$TMP/dedup.out"
expect_out "the summary counts it once" "make -k: failed (exit 2), 1 error, 0 warnings" sed -n 1p "$TMP/dedup.out"
expect_out "shown once with its count" "1" sh -c "grep -c 'kv.h:1:.* error: .*(3 times)\$' '$TMP/dedup.out'"
expect_out "and not again" "2" sh -c "wc -l < '$TMP/dedup.out' | tr -d ' '"

# ---- read names the lines it shows ----
seq 1 22 | sed 's/^/# line /' > "$D/Makefile.in"
expect_out "a 22-line file" "Makefile.in:1-22" sh -c "'$Q' dwim 'read Makefile.in' | head -1"
cp "$D/Makefile.in" "$D/Makefile"
expect_out "a 22-line Makefile" "Makefile:1-22" sh -c "'$Q' dwim 'read Makefile' | head -1"
expect_out "a range past the end is cut to it" "Makefile.in:20-22" sh -c "'$Q' dwim 'read Makefile.in:20-40' | head -1"
expect_err "a start past the end" "'Makefile.in' has 22 lines; line 30 is past its end" "$Q" dwim "read Makefile.in:30-40"

# ---- SEARCH blocks: a unique piece of a line ----
printf 'int add(int a, int b)\n{\n    return a + b; /* sum */\n}\nint twice(int a) { return add(a, a); }\n' > calc.c
git add -A && git commit -qm calc
expect_out "a piece of a line" "edited calc.c at line 3: -5 +5 bytes (quarry dwim undo restores it)" \
  "$Q" dwim --write "$(printf 'fix calc.c\n<<<<<<< SEARCH\na + b\n=======\nb + a\n>>>>>>> REPLACE')"
expect_out "the line keeps its indent and comment" "    return b + a; /* sum */" sed -n 3p calc.c
expect_err "a piece found twice" "the SEARCH text occurs more than once in 'calc.c'; give more of it" \
  "$Q" dwim --write "$(printf 'fix calc.c\n<<<<<<< SEARCH\nreturn\n=======\nreturn 0 +\n>>>>>>> REPLACE')"
expect_err "not there" "the SEARCH text is not in 'calc.c' (compared byte for byte, spaces included, as whole lines or a piece of one): read the lines and copy them" \
  "$Q" dwim --write "$(printf 'fix calc.c\n<<<<<<< SEARCH\nreturn  b + a;\n=======\nx\n>>>>>>> REPLACE')"
expect_out "whole lines still work" "edited calc.c at line 5: -39 +39 bytes (quarry dwim undo restores it)" \
  "$Q" dwim --write "$(printf 'fix calc.c\n<<<<<<< SEARCH\nint twice(int a) { return add(a, a); }\n=======\nint twice(int a) { return add(a, a); }\n>>>>>>> REPLACE')"
finish
