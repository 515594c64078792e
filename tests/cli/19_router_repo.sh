# 19_router_repo.sh: tier-1 questions whose reading depends on the repository (issue 27):
# a file named without its folders (the root file, the one file of that name, several
# files: declined), tags of a scheme that is not a version ("release-2.1-stable"), a
# full name over all its addresses, directories ranked, a file's renames (and a file
# renamed away), line totals, one commit shown, the tags themselves, two people
# compared, a file changed on both sides of a merge (its last change is the merge git
# lists, and the last change that is not one is named); and two tool readings they rest
# on: `since` with a path filters by date (git's --since-as-filter) on a history whose
# dates are out of order, and an address is one author whatever its case. Every
# answer is checked against git on a repository built here; "now" is pinned.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null 2>&1 || { echo "FAIL: git is needed"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed"; exit 1; }
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C QUARRY_NOW=2026-11-24T12:00:00Z
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER
mkdir -p "$HOME"
R="$TMP/harbor"
git init -q -b main "$R"
commit() { # commit DATE "NAME" EMAIL MESSAGE (the tree as the caller left it)
  git -C "$R" add -A
  GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$3 GIT_AUTHOR_DATE="$1 +0000" \
  GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$3 GIT_COMMITTER_DATE="$1 +0000" \
    git -C "$R" commit -q -m "$4"
}
mkdir -p "$R/test" "$R/src/a" "$R/lib/a" "$R/services/ledger" "$R/services/gateway"
printf 'one\ntwo\n' > "$R/http.c"
echo r > "$R/test/regress.c"
echo u > "$R/src/a/util.c"; echo u > "$R/lib/a/util.c"
echo l > "$R/services/ledger/main.go"; echo g > "$R/services/gateway/main.go"
printf 'a\nb\nc\n' > "$R/src/old_name.c"
commit "2025-01-10T10:00:00" "Mei Lin Chen" mei@example.org "initial tree"
printf 'one\ntwo\nthree\nfour\n' > "$R/http.c"; echo l2 >> "$R/services/ledger/main.go"
commit "2025-02-10T10:00:00" "Bob Stone" Bob.Stone@Example.org "http: two lines"
git -C "$R" tag release-2.1-stable
sed -i 's/one/ONE/' "$R/http.c"; echo l3 >> "$R/services/ledger/main.go"
echo t >> "$R/test/regress.c"
commit "2025-03-10T10:00:00" "Bob Stone" bob.stone@example.org "http: one changed"
git -C "$R" mv src/old_name.c src/new_name.c
commit "2025-04-10T10:00:00" "Mei Lin Chen" mei@other.example.org "rename old_name.c"
echo g2 >> "$R/services/gateway/main.go"
commit "2025-05-10T10:00:00" "Mei Lin Chen" mei@example.org "gateway"
git -C "$R" tag release-2.2-stable
# a side branch whose commits carry dates older than the window, merged after it: git log
# --since -- PATH stops at the old-dated parent; the window's commit on it still counts
git -C "$R" checkout -q -b side
echo s >> "$R/test/regress.c"
commit "2025-06-20T10:00:00" "Bob Stone" bob.stone@example.org "test: side work"
echo s2 >> "$R/test/regress.c"
commit "2025-01-05T10:00:00" "Bob Stone" bob.stone@example.org "test: old-dated side work"
git -C "$R" checkout -q main
echo m >> "$R/http.c"
commit "2025-06-25T10:00:00" "Mei Lin Chen" mei@example.org "http: main work"
GIT_AUTHOR_DATE="2025-07-01T10:00:00 +0000" GIT_COMMITTER_DATE="2025-07-01T10:00:00 +0000" \
  GIT_AUTHOR_NAME="Mei Lin Chen" GIT_AUTHOR_EMAIL=mei@example.org \
  GIT_COMMITTER_NAME="Mei Lin Chen" GIT_COMMITTER_EMAIL=mei@example.org \
  git -C "$R" merge -q --no-ff -m "merge side" side

# ask Q: the rule that answered, then the answer's key fields, one per line
ask() {
  (cd "$R" && "$Q" ask "$1" --format json --explain) >"$TMP/out.json" 2>"$TMP/err.json"
  python3 - "$TMP/out.json" "$TMP/err.json" <<'PY'
import json, sys
try:
    out = json.load(open(sys.argv[1]))
    rule = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])["explain"]["rule"]
except Exception:
    rule = None
if not rule or "error" in out:
    print("no-answer")
    sys.exit(0)
print(rule)
for k in ("count", "total", "hash"):
    if k in out:
        print("%s=%s" % (k, out[k]))
for row in out.get("findings", [])[:3]:
    print(row.get("name") or row.get("old_path") or row.get("short_hash") or row.get("path") or
          row.get("author"))
PY
}
n() { git -C "$R" "$@" | wc -l | tr -d ' '; }
first_line() { ask "$1" | head -1; }

# a bare file name: the root file, else the one file of that name; several: declined
expect_out "http.c at the root" "count-commits
count=$(n log --format=%h -- http.c)" ask "how many commits touched http.c?"
expect_out "regress.c is test/regress.c" "count-commits
count=$(n log --format=%h -- test/regress.c)" ask "how many commits changed regress.c"
expect_out "two util.c" "no-answer" ask "who last changed util.c"
expect_err "two util.c: named" "src/a/util.c" sh -c 'cd "$1" && "$2" ask "who last changed util.c"' _ "$R" "$Q"
# tags of another scheme, whole and as a range
expect_out "tag range" "count-commits
count=$(n rev-list release-2.1-stable..release-2.2-stable)" \
  ask "how many commits are between release-2.1-stable and release-2.2-stable?"
expect_out "commit of a tag" "commit-show
hash=$(git -C "$R" rev-parse release-2.1-stable^{commit})
$(git -C "$R" rev-parse --short=7 release-2.1-stable^{commit})" ask "what commit is release-2.1-stable?"
# the tags themselves: the latest, how many, when one was made (get_tags)
expect_out "latest release" "tags
$(git -C "$R" tag --sort=-creatordate | head -1)" ask "what's the latest release?"
expect_out "how many tags" "tags
count=$(n tag)
$(git -C "$R" tag --sort=-creatordate | head -3)" ask "how many tags does the repo have?"
expect_out "when a tag was made" "tags
release-2.1-stable" ask "when was release-2.1-stable tagged?"
expect_out "tags in a window" "tags
count=$(git -C "$R" for-each-ref --format='%(creatordate:short)' refs/tags | grep -c '^2025-0[1-3]')
release-2.1-stable" ask "how many releases were cut in Q1 2025?"
expect_out "tags by a prefix" "tags
count=$(n tag -l 'release-2*')
$(git -C "$R" tag --sort=-creatordate -l 'release-2*' | head -3)" ask "how many tags start with release-2"
expect_out "a tag that is not there: no" "tags" first_line "is there a tag called v9.9.9?"
expect_out "files changed in HEAD: that commit's" "commit-files" first_line "files changed in HEAD"
expect_out "the last merge into main" "merge-commits
$(git -C "$R" log -1 --merges --format=%h main)" ask "last merge into main"
expect_out "the month with the most commits" "commits-by-period" \
  first_line "which month of 2025 had the most commits?"
# the project by its name (the working tree's): the repository itself
expect_out "the project named" "count-commits
count=$(n log --format=%h --merges)" ask "how many merge commits does harbor have?"
# a full name of three words, over both of its addresses
expect_out "three-word name" "count-commits
count=$(n log --format=%h --author='Mei Lin Chen')" ask "how many commits did Mei Lin Chen make?"
# two people compared, each summed over their addresses (Mei has two, Bob two spellings)
mei=$(n log --format=%h --author='Mei Lin Chen'); bob=$(n log --format=%h --author='Bob Stone')
if [ "$mei" -gt "$bob" ]; then first="Mei Lin Chen"; second="Bob Stone"; else first="Bob Stone"; second="Mei Lin Chen"; fi
expect_out "two people compared" "compare-authors
$first
$second" ask "who has more commits, Bob Stone or Mei Lin Chen?"
expect_out "two people compared, fewer" "compare-authors
$second
$first" ask "between Mei Lin Chen and Bob Stone, who has fewer commits?"
# directories ranked: commits each counted once per directory
expect_out "directories under services/" "file-churn
services/ledger/
services/gateway/" ask "which service under services/ has had the most commits?"
# renames: the file's name before; a file renamed away, asked by its old name: the commit
# where that name left (its summary says renamed away or deleted)
expect_out "renamed from" "file-renames
src/old_name.c" ask "what was src/new_name.c called before it was renamed?"
expect_out "renamed away" "file-renames
$(git -C "$R" log -1 --format=%h --abbrev=7 --no-renames --diff-filter=D -- src/old_name.c)" ask "who renamed src/old_name.c?"
# line totals of one file, as git log --numstat counts them
expect_out "lines added to http.c" "count-lines
total=$(git -C "$R" log --numstat --format= -- http.c | awk '{a+=$1} END {print a}')" \
  ask "How many lines were added to http.c in total?"
# since with a path: every commit of the window under test/, the old-dated parent's
# descendant on the side branch included (git log --since-as-filter)
fwant=$(n log --format=%h --since-as-filter=2025-06-01T00:00:00 -- test)
expect_out "since with a path filters" "count-commits
count=$fwant" ask "how many commits touched test/ since 2025-06-01?"
[ "$fwant" = 1 ] || { echo "FAIL: fixture: one commit under test/ since June, git says $fwant"; FAILS=$((FAILS + 1)); }
[ "$(n log --format=%h --since=2025-06-01T00:00:00 -- test)" = 0 ] ||
  { echo "FAIL: fixture: git log --since -- test was meant to stop early here"; FAILS=$((FAILS + 1)); }
# one author whatever the case of the address: Bob's two spellings are one, Mei's two
# addresses two
expect_out "address case folded" "count-authors
count=$(git -C "$R" log --format=%aE | tr 'A-Z' 'a-z' | sort -u | wc -l | tr -d ' ')
Bob Stone
Mei Lin Chen
Mei Lin Chen" ask "how many distinct people have contributed commits?"
# releases as tmux names them (a letter for a fix release, no prefix): 1.0a on a
# maintenance line tagged between 1.0 and 1.1; 1.1 grew from 1.0. The tag before 1.1 by
# version and date is 1.0a; what 1.1 changed is 1.0..1.1. An author named after the
# project ("rig update bot") is the bot only by that name; the project by its name is the
# repository. A file asked in another case is found.
R2="$TMP/rig"
git init -q -b main "$R2"
commit2() { # commit2 DATE "NAME" EMAIL MESSAGE
  git -C "$R2" add -A
  GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$3 GIT_AUTHOR_DATE="$1 +0000" \
  GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$3 GIT_COMMITTER_DATE="$1 +0000" \
    git -C "$R2" commit -q -m "$4"
}
tag2() { # tag2 NAME DATE: an annotated tag made at DATE
  GIT_COMMITTER_NAME="Ann Lee" GIT_COMMITTER_EMAIL=ann@example.org \
  GIT_COMMITTER_DATE="$2 +0000" git -C "$R2" tag -a "$1" -m "$1"
}
echo a > "$R2/status.c"
commit2 "2025-01-10T10:00:00" "Ann Lee" ann@example.org "start"
tag2 1.0 "2025-01-10T11:00:00"
git -C "$R2" checkout -q -b maint
echo fix >> "$R2/status.c"
commit2 "2025-02-10T10:00:00" "Ann Lee" ann@example.org "fix"
tag2 1.0a "2025-02-10T11:00:00"
git -C "$R2" checkout -q main
echo b >> "$R2/status.c"
commit2 "2025-02-20T10:00:00" "rig update bot" actions@github.com "sync"
echo c > "$R2/main.c"
commit2 "2025-03-01T10:00:00" "Ann Lee" ann@example.org "main"
tag2 1.1 "2025-03-01T11:00:00"
echo d >> "$R2/main.c"
commit2 "2025-04-01T10:00:00" "rig update bot" actions@github.com "sync again"
ask2() { (R=$R2 ask "$1"); }
expect_out "tag before a release" "tags
1.0a" ask2 "which tag came before 1.1?"
expect_out "a version series with an x" "tags
count=$(git -C "$R2" tag -l '1.*' | wc -l | tr -d ' ')" sh -c "R='$R2'; cd \"\$R\" && '$Q' ask 'how many 1.x releases were tagged' --format json | python3 -c 'import json,sys; print(\"tags\"); print(\"count=%s\" % json.load(sys.stdin)[\"count\"])'"
expect_out "the date of a tag" "tags
1.0a" ask2 "date of the 1.0a tag"
expect_out "the release before the latest" "tags
1.0a" ask2 "what release came before the latest one?"
expect_out "release after a release" "tags
1.0a" ask2 "the release right after 1.0"
expect_out "none after the last" "no-answer" ask2 "what version came after 1.1"
expect_out "what a release changed" "commits-in-window
$(git -C "$R2" log --format=%h --abbrev=7 1.0..1.1 | head -3)" ask2 "what changed in 1.1"
expect_out "everything a tag holds" "count-commits
count=$(git -C "$R2" rev-list --count 1.1)" ask2 "how many commits went into 1.1"
expect_out "letter release" "count-commits
count=$(git -C "$R2" rev-list --count 1.0..1.0a)" ask2 "how many commits in release 1.0a"
expect_out "the project, not its bot" "count-commits
count=$(git -C "$R2" rev-list --count HEAD)" ask2 "how many commits does rig have"
expect_out "the bot by its name" "count-commits
count=$(git -C "$R2" rev-list --count --author=actions@github.com HEAD)" ask2 "how many commits has the update bot made"
# "the last release": the newest release tag by date that HEAD's history holds (1.1), as
# git describe finds it; "the previous release" is the one before it on HEAD's line (1.0:
# 1.0a was tagged on a maintenance branch)
expect_out "since the last release" "count-commits
count=$(git -C "$R2" rev-list --count "$(git -C "$R2" describe --tags --abbrev=0)"..HEAD)" ask2 "how many commits since the last release"
expect_out "the previous release on HEAD's line" "count-commits
count=$(git -C "$R2" rev-list --count 1.0..HEAD)" ask2 "how many commits since the previous release"
expect_out "a file in another case" "count-commits
count=$(git -C "$R2" rev-list --count HEAD -- status.c)" ask2 "hw many commits touched STATUS.C"
# a file changed on both sides of a merge: git log -- FILE lists the merge (its tree
# differs in the file from both parents) and git log --follow does not; the last change is
# git's (the merge), and the summary names the last change that is not a merge
R4="$TMP/both"
git init -q -b main "$R4"
printf 'a\nb\nc\nd\ne\n' > "$R4/both.c"
(R=$R4 commit "2025-01-10T10:00:00" "Ann Lee" ann@example.org "start")
git -C "$R4" checkout -q -b side
sed -i 's/^a$/A/' "$R4/both.c"
(R=$R4 commit "2025-01-11T10:00:00" "Bob Stone" bob@example.org "side: first line")
git -C "$R4" checkout -q main
sed -i 's/^e$/E/' "$R4/both.c"
(R=$R4 commit "2025-01-12T10:00:00" "Ann Lee" ann@example.org "main: last line")
GIT_AUTHOR_DATE="2025-01-13T10:00:00 +0000" GIT_COMMITTER_DATE="2025-01-13T10:00:00 +0000" \
  GIT_AUTHOR_NAME="sync bot" GIT_AUTHOR_EMAIL=sync@example.org \
  GIT_COMMITTER_NAME="sync bot" GIT_COMMITTER_EMAIL=sync@example.org \
  git -C "$R4" merge -q --no-ff -m "merge side" side
ask4() { (R=$R4 ask "$1"); }
# a newer release tagged off HEAD's line is passed over: the last release is v1.0
git -C "$R4" tag v1.0 main~1
git -C "$R4" checkout -q -b rel main~2
echo r > "$R4/rel.c"
(R=$R4 commit "2025-02-01T10:00:00" "Ann Lee" ann@example.org "release work")
GIT_COMMITTER_DATE="2025-02-01T11:00:00 +0000" git -C "$R4" tag -a v2.0 -m v2.0
git -C "$R4" checkout -q main
expect_out "the last release off HEAD's line: passed over" "count-commits
count=$(git -C "$R4" rev-list --count v1.0..HEAD)" ask4 "how many commits since the last release"
expect_out "last change: the merge git shows" "file-last-change
$(git -C "$R4" log -1 --format=%h --abbrev=7 -- both.c)" ask4 "who last touched both.c"
expect_out "its last change not a merge" "last change other than a merge: $(git -C "$R4" log -1 --no-merges --format=%h --abbrev=7 -- both.c) by Ann Lee" \
  sh -c 'cd "$1" && "$2" ask "who last touched both.c" | grep -o "last change other than a merge: [0-9a-f]* by [A-Za-z ]*[a-z] on" | sed "s/ on$//"' _ "$R4" "$Q"
expect_out "a file's commits, merges git shows included" "file-history
$(git -C "$R4" log --format=%h --abbrev=7 -- both.c | head -3)" ask4 "commits touching both.c"
expect_out "merges excluded: the lineage" "file-history
$(git -C "$R4" log --no-merges --format=%h --abbrev=7 -- both.c | head -3)" ask4 "commits touching both.c, no merges"
# one person under two addresses and two spellings (jdhore1@ as "JD Horelick" and "Jeff
# Horelick", a noreply address as "Jeff Horelick"): a handle, a name, each spelling count
# every address; a root file named in capitals (NOTICE); a release asked yes or no; a
# window "after A and before B"; a clause of chatter before the question; git show's files
R5="$TMP/people"
git init -q -b main "$R5"
commit5() { (R=$R5 commit "$@"); }
echo n > "$R5/NOTICE"; echo a > "$R5/a.c"
commit5 "2025-01-10T10:00:00" "Ann Lee" ann@example.org "start"
git -C "$R5" tag 1.0.0
echo b >> "$R5/a.c"
commit5 "2025-02-10T10:00:00" "JD Horelick" jdhore1@example.org "one"
echo c >> "$R5/a.c"
commit5 "2025-03-10T10:00:00" "Jeff Horelick" jdhore1@example.org "two"
echo d > "$R5/b.c"
commit5 "2025-04-10T10:00:00" "Jeff Horelick" 42537+jdhore@users.noreply.github.com "three"
echo n2 >> "$R5/NOTICE"
commit5 "2025-05-10T10:00:00" "Ann Lee" ann@example.org "notice"
git -C "$R5" tag 2.0.0
echo e >> "$R5/b.c"
commit5 "2025-06-10T10:00:00" "Ann Lee" ann@example.org "after"
ask5() { (R=$R5 ask "$1"); }
horelick=$(git -C "$R5" log --format=%ae | grep -c jdhore)
expect_out "a handle: every address of the person" "count-commits
count=$horelick" ask5 "jdhore commit count"
expect_out "one spelling of the name: every address" "count-commits
count=$horelick" ask5 "how many commits by JD Horelick"
expect_out "a root file in capitals" "file-last-change
$(git -C "$R5" log -1 --format=%h --abbrev=7 -- NOTICE)" ask5 "LAST MODIFICATION DATE OF NOTICE"
expect_out "is there a release: yes" "tags
2.0.0" ask5 "is there a 2.0.0 release?"
expect_out "is there a release: no" "tags" first_line "Is there a v3.0.0 release?"
expect_out "a yes/no about which release: declined" "no-answer" ask5 "is 2.0.0 the latest release"
expect_out "after A and before B" "count-commits
count=$(git -C "$R5" rev-list --count 1.0.0..2.0.0)" ask5 "how many commits happened after 1.0.0 and before 2.0.0?"
expect_out "a clause of chatter first" "file-last-change
$(git -C "$R5" log -1 --format=%h --abbrev=7 -- b.c)" ask5 "I'm reviewing the ledger code - who was the last one to change b.c?"
expect_out "who made the file" "file-created
$(git -C "$R5" log --diff-filter=A --format=%h --abbrev=7 -- b.c)" ask5 "who made teh file b.c"
show=$(cd "$R5" && "$Q" ask "show $(git -C "$R5" rev-parse --short HEAD~1)" --format json | python3 -c 'import json,sys; print(" ".join(p["path"] for p in json.load(sys.stdin)["findings"][0]["paths"]))')
expect_out "show COMMIT: its files" "NOTICE" echo "$show"
# git's revision words and the commit a tag names; directories ranked in other words
two5() { ask5 "$1" | head -2; }
two() { ask "$1" | head -2; }
expect_out "show --stat HEAD~1" "commit-show
hash=$(git -C "$R5" rev-parse HEAD~1)" two5 "show --stat HEAD~1"
expect_out "which commit is tagged" "commit-show
hash=$(git -C "$R5" rev-parse 2.0.0^{commit})" two5 "which commit is tagged 2.0.0"
expect_out "rank the directories" "file-churn" first_line "rank the top-level directories by number of commits"
expect_out "a directory that gets the most commits" "file-churn
services/ledger/" two "which directory under services gets the most commits"
# a yes/no question about commits: the answer, with the rows that make it; a count to
# equal ("authors who only made one commit") is declined, not ranked
yes_no() { (cd "$R5" && "$Q" ask "$1" --format json) | python3 -c 'import json,sys; print(json.load(sys.stdin).get("answer"))'; }
expect_out "did anyone commit on a day: no" "no" yes_no "did anyone commit on 2025-02-11"
expect_out "were there any commits on a day: yes" "yes" yes_no "were there any commits on 2025-02-10"
expect_out "a count to equal: declined" "no-answer" ask5 "authors who only made one commit"
finish
