#!/bin/sh
# parity.sh: compares quarry's git answers with git's own on any repository, for what
# git answers differently from a plain `git log`: pathspecs with `..` and magic, globs in
# get_file_history, ranges as ref, attributes that make files binary, and a shallow clone
# made shallower. Read-only on REPO (attributes and shallow clones are tried on copies).
#   sh bench/git/parity.sh QUARRY REPO
# Prints one line per check and "N checks, M differ"; exits 1 when any differs.
Q=${1:?usage: parity.sh QUARRY REPO}
REPO=${2:?usage: parity.sh QUARRY REPO}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export LC_ALL=C TZ=UTC
N=0 BAD=0
check() { # check NAME WANT GOT
  N=$((N + 1))
  if [ "$2" = "$3" ]; then echo "same    $1"; else echo "DIFFER  $1"; BAD=$((BAD + 1)); fi
}
hashes() { "$Q" tool get_commits --repo "$1" --format json --limit-output 0 "$@" 2>/dev/null |
  grep -o '"hash":"[0-9a-f]*"' | cut -d'"' -f4; }
qhashes() { d=$1; shift; "$Q" tool get_commits --repo "$d" --format json --limit-output 0 "$@" 2>/dev/null |
  grep -o '"hash":"[0-9a-f]*"' | cut -d'"' -f4; }
qsum() { d=$1; shift; "$Q" tool get_commits --repo "$d" --format json --limit-output 0 "$@" 2>/dev/null |
  grep -o '"additions":[0-9]*' | awk -F: '{ s += $2 } END { print s + 0 }'; }
gsum() { d=$1; shift; git -C "$d" log --numstat --no-renames --format= "$@" | awk '$1 != "-" { s += $1 } END { print s + 0 }'; }

# directories and extensions that exist in this history
top=$(git -C "$REPO" ls-tree -d --name-only HEAD | head -3)
ext=$(git -C "$REPO" ls-tree -r --name-only HEAD | sed -n 's/.*\.\([a-z]*\)$/\1/p' | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
file=$(git -C "$REPO" log --format= --name-only --diff-filter=M -n 50 | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
specs="*.$ext :(glob)**/*.$ext :(icase)$(echo "$file" | tr '[:lower:]' '[:upper:]')"
for d in $top; do
  specs="$specs $d :!$d :(exclude)$d/ :(glob)$d/* $d/../$file ./$d//"
done
for s in $specs; do
  check "get_commits path '$s'" "$(git -C "$REPO" log --format=%H -- "$s")" "$(qhashes "$REPO" --path "$s")"
  check "lines path '$s'" "$(gsum "$REPO" -- "$s")" "$(qsum "$REPO" --path "$s")"
done
for s in "*.$ext" ":(glob)**/*.$ext"; do
  want=$(git -C "$REPO" log -M --format='C %H' --numstat -- "$s" | awk '/^C / { h = $2; next } NF >= 3 { print h, $1, $2 }')
  got=$("$Q" tool get_file_history --repo "$REPO" --path "$s" --format json --limit-output 0 2>/dev/null |
    grep -o '"hash":"[0-9a-f]*"\|"additions":[0-9]*,"deletions":[0-9]*' |
    awk -F'[:,"]+' '/hash/ { h = $3; next } { print h, $3, $5 }')
  check "get_file_history pattern '$s'" "$want" "$got"
done
# ranges between tags/branches, or HEAD~N
a=$(git -C "$REPO" rev-parse -q --verify HEAD~40 || git -C "$REPO" rev-list --max-parents=0 HEAD | head -1)
b=$(git -C "$REPO" rev-parse -q --verify HEAD~10 || echo HEAD)
for r in "$a..HEAD" "HEAD..$a" "$a...$b" "^$b HEAD"; do
  # shellcheck disable=SC2086
  check "get_commits ref '$r'" "$(git -C "$REPO" log --format=%H $r)" "$(qhashes "$REPO" --ref "$r")"
  # shellcheck disable=SC2086
  check "lines ref '$r'" "$(gsum "$REPO" $r)" "$(qsum "$REPO" --ref "$r")"
done
# attributes: a copy whose most changed extension becomes binary after indexing
C="$TMP/copy"
git clone -q --no-local "$REPO" "$C" 2>/dev/null || git clone -q "$REPO" "$C"
"$Q" index --repo "$C" >/dev/null 2>&1
printf '*.%s binary\n' "$ext" > "$C/.gitattributes"
check "attributes '*.$ext binary' (index)" "$(gsum "$C")" "$(qsum "$C")"
check "attributes '*.$ext binary' (--no-index)" "$(gsum "$C")" "$(qsum "$C" --no-index)"
rm "$C/.gitattributes"
check "attributes removed" "$(gsum "$C")" "$(qsum "$C")"
# a shallow clone made shallower after indexing
S="$TMP/shallow"
git clone -q --depth 60 "file://$(cd "$REPO" && pwd)" "$S" 2>/dev/null
"$Q" index --repo "$S" >/dev/null 2>&1
git -C "$S" fetch -q --depth 7 2>/dev/null
check "shallow clone made shallower (index)" "$(gsum "$S")" "$(qsum "$S")"
check "shallow clone made shallower (--no-index)" "$(gsum "$S")" "$(qsum "$S" --no-index)"
echo "$N checks, $BAD differ"
[ "$BAD" -eq 0 ]
