#!/usr/bin/env bash
# fixture.sh DIR: the repository bench/ask's sixteen questions are asked of, made with git
# at fixed dates (so QUARRY_NOW=2025-06-20T12:00:00Z gives the same answers on any day):
# 170 commits from July 2024 to June 2025 by four people (dee the quietest), author dates
# in four UTC offsets, .c files with and without their .h, messages that start with a
# verb and some that do not, and branches of bob's merged by ann (and one by bob himself).
set -euo pipefail
R=${1:?usage: fixture.sh DIR}
export GIT_CONFIG_NOSYSTEM=1 HOME=${HOME:-/tmp} LC_ALL=C
git init -q -b main "$R"
git -C "$R" config commit.gpgsign false
mkdir -p "$R/src" "$R/lib" "$R/docs"
people=(ann bob cid dee)
offsets=(+00:00 +02:00 -05:00 +05:30)
msgs=("Add parser pass" "Fix crash in lexer" "Update the docs" "refactor: split module"
      "WIP" "typo in readme" "Version 1.2" "Remove dead code" "Make the build quieter"
      "more tests" "Use the new allocator" "Improve error messages")
commit() { # commit I WHO WHEN MESSAGE
  local i=$1 who=$2 when=$3 msg=$4 k
  case $((i % 5)) in
    0) echo "$i" >>"$R/src/m$((i % 4)).c"; echo "$i" >>"$R/src/m$((i % 4)).h" ;;
    1) echo "$i" >>"$R/src/m$((i % 4)).c" ;;
    2) echo "$i" >>"$R/docs/guide.md" ;;
    3) echo "$i" >>"$R/lib/util.py" ;;
    4) for k in $(seq 0 $((i % 3 + 3))); do echo "$i" >>"$R/src/w$k.c"; done ;;
  esac
  git -C "$R" add -A
  GIT_AUTHOR_NAME=$who GIT_AUTHOR_EMAIL=$who@example.com GIT_AUTHOR_DATE=$when \
  GIT_COMMITTER_NAME=$who GIT_COMMITTER_EMAIL=$who@example.com GIT_COMMITTER_DATE=$when \
    git -C "$R" commit -q -m "$msg"
}
when() { # when DAYS_AFTER_2024-07-01 HOUR OFFSET
  printf '%sT%02d:17:00%s' "$(date -u -d "2024-07-01 +$1 days" +%Y-%m-%d)" "$2" "$3"
}
for i in $(seq 1 170); do
  if [ "$i" -le 150 ]; then day=$((i * 2)); else day=$((330 + i - 150)); fi
  who=${people[$((i % 4))]}
  [ "$who" = dee ] && [ $((i % 3)) -ne 0 ] && who=ann
  commit "$i" "$who" "$(when "$day" $(((i * 7) % 24)) "${offsets[$((i % 4))]}")" "${msgs[$((i % 12))]}"
  if [ $((i % 25)) -eq 0 ]; then
    # a branch of bob's, merged by ann (by bob himself once)
    git -C "$R" checkout -q -b "topic$i"
    commit $((i + 1000)) bob "$(when "$day" 22 +00:00)" "Add topic $i"
    commit $((i + 1001)) bob "$(when "$day" 23 +00:00)" "Fix topic $i"
    git -C "$R" checkout -q main
    merger=ann
    [ "$i" -eq 100 ] && merger=bob
    GIT_AUTHOR_NAME=$merger GIT_AUTHOR_EMAIL=$merger@example.com \
    GIT_AUTHOR_DATE=$(when $((day + 1)) 9 +00:00) \
    GIT_COMMITTER_NAME=$merger GIT_COMMITTER_EMAIL=$merger@example.com \
    GIT_COMMITTER_DATE=$(when $((day + 1)) 9 +00:00) \
      git -C "$R" merge -q --no-ff -m "Merge topic $i" "topic$i"
  fi
done
