# 22_install.sh: `make install` into a DESTDIR (the install-files step, which `make install`
# runs after building, given the binary under test): the binary, a man page per command
# of the command table, bash and zsh completion; then the installed binary runs, serves
# MCP as `claude mcp add quarry -- quarry mcp` would start it, and its completions and
# man pages work.
. "$(dirname "$0")/lib.sh"

for tool in make man zsh bash; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "skipped: $tool is not installed (scripts/deps.sh --test installs it)"
    exit 77
  fi
done

D="$TMP/dest"
if ! make -s -C "$SRC" install-files QUARRY="$Q" DESTDIR="$D" PREFIX=/usr/local >"$TMP/make.out" 2>&1; then
  echo "FAIL: make install-files:"; sed 's/^/  /' "$TMP/make.out"
  exit 1
fi
P="$D/usr/local"
[ -x "$P/bin/quarry" ] || { echo "FAIL: no executable $P/bin/quarry"; FAILS=$((FAILS + 1)); }
for page in quarry $("$Q" help --commands | cut -f1 | sed 's/^/quarry-/'); do
  f="$P/share/man/man1/$page.1"
  if [ ! -f "$f" ]; then
    echo "FAIL: no man page $f"; FAILS=$((FAILS + 1)); continue
  fi
  man -l "$f" >"$TMP/man.txt" 2>"$TMP/man.err" || { echo "FAIL: man -l $page.1"; FAILS=$((FAILS + 1)); }
done
expect_out "quarry-mcp.1 shows the synopsis" "1" \
  sh -c "MANWIDTH=100 man -l '$P/share/man/man1/quarry-mcp.1' 2>/dev/null | grep -c 'quarry mcp \[--repo DIR\] \[--http ADDR\] \[OPTIONS\]'"
expect_out "quarry-mcp.1 documents --http" "1" \
  sh -c "MANWIDTH=100 man -l '$P/share/man/man1/quarry-mcp.1' 2>/dev/null | grep -c -- '--http ADDR  '"
expect_out "quarry-mcp.1 documents --workers" "1" \
  sh -c "MANWIDTH=100 man -l '$P/share/man/man1/quarry-mcp.1' 2>/dev/null | grep -c -- '--workers N'"
expect_out "quarry.1 lists the commands" "1" \
  sh -c "MANWIDTH=100 man -l '$P/share/man/man1/quarry.1' 2>/dev/null | grep -c 'print the version (quarry-version(1))'"

# the documentation the help pages name is installed, and the man pages and the installed
# binary's --help point at it
for d in mcp tools capabilities mcp-http; do
  [ -f "$P/share/doc/quarry/$d.md" ] || { echo "FAIL: no $P/share/doc/quarry/$d.md"; FAILS=$((FAILS + 1)); }
done
expect_out "quarry-mcp.1 points at the installed docs" "0 1" \
  sh -c "n=\$(grep -c 'docs/mcp.md' '$P/share/man/man1/quarry-mcp.1'); m=\$(grep -c '/usr/local/share/doc/quarry/mcp.md' '$P/share/man/man1/quarry-mcp.1'); echo \$n \$((m > 0))"
expect_out "no man page names docs/ of a source tree" "" \
  sh -c "grep -l '[^/]docs/[a-z-]*\.md' '$P'/share/man/man1/*.1"
expect_out "make install says where the docs go" "1" grep -c "documentation in $P/share/doc/quarry" "$TMP/make.out"
expect_out "the installed quarry --help names its docs" "Documentation: $P/share/doc/quarry (docs/NAME.md in the help pages is NAME.md there)." \
  sh -c "'$P/bin/quarry' --help | tail -1"
expect_out "the man page of quarry mcp lists the tools served" "1" \
  sh -c "MANWIDTH=100 man -l '$P/share/man/man1/quarry-mcp.1' 2>/dev/null | grep -c 'search_codebase'"

# the installed binary, found on PATH as an MCP client would start it
expect_out "the installed binary runs" "quarry $("$Q" version | sed 's/^quarry //')" \
  env PATH="$P/bin:/usr/bin:/bin" quarry version
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}' \
  '{"jsonrpc":"2.0","id":2,"method":"ping"}' > "$TMP/mcp.in"
expect_out "quarry mcp from PATH answers" '{"jsonrpc":"2.0","id":2,"result":{}}' \
  sh -c "cd '$SRC' && env PATH='$P/bin:/usr/bin:/bin' quarry mcp < '$TMP/mcp.in' | tail -n 1"

# completions
BC="$P/share/bash-completion/completions/quarry"
expect_out "bash completes a command" "mcp" \
  bash -c ". '$BC'; COMP_WORDS=(quarry mc); COMP_CWORD=1; _quarry; echo \${COMPREPLY[*]}"
expect_out "bash completes an option" "--workers" \
  bash -c ". '$BC'; COMP_WORDS=(quarry mcp --wor); COMP_CWORD=2; _quarry; echo \${COMPREPLY[*]}"
expect_out "bash asks the installed quarry: an option's values" "dot svg" \
  bash -c "PATH='$P/bin':\$PATH; . '$BC'; COMP_WORDS=(quarry code graph f --format ''); COMP_CWORD=5; _quarry; echo \${COMPREPLY[*]}"
expect_out "bash offers only what the command takes" "" \
  bash -c "PATH='$P/bin':\$PATH; . '$BC'; COMP_WORDS=(quarry index --num); COMP_CWORD=2; _quarry; echo \${COMPREPLY[*]}"
expect_rc "the zsh completion parses" 0 zsh -n "$P/share/zsh/site-functions/_quarry"
expect_out "the zsh completion knows the commands" "1" \
  sh -c "grep -c \"'mcp:serve the tools\" '$P/share/zsh/site-functions/_quarry'"
finish
