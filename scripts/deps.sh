#!/bin/sh
# deps.sh: makes sure the Debian packages quarry builds with are present.
# Checks each with pkg-config (or the command it provides); when run as root, installs
# what is missing with apt-get; otherwise prints the exact command and fails.
set -eu

# pkg-config module or command : Debian package
NEEDS="
cmd:cc:gcc
cmd:cmake:cmake
cmd:make:make
cmd:pkg-config:pkg-config
cmd:git:git
pc:libpcre2-8:libpcre2-dev
pc:libedit:libedit-dev
pc:libgit2:libgit2-dev
pc:sqlite3:libsqlite3-dev
pc:libcurl:libcurl4-openssl-dev
pc:tree-sitter:libtree-sitter-dev
cmd:ctags:universal-ctags
pc:serd-0:libserd-dev
pc:libcrypto:libssl-dev
pc:libpq:libpq-dev
pc:gmp:libgmp-dev
pc:icu-uc:libicu-dev
"
# only for `make test`: the sanitizer and fuzzer runtimes come with clang
if [ "${1:-}" = "--test" ]; then
  NEEDS="$NEEDS
cmd:clang:clang
cmd:python3:python3
cmd:node:nodejs
cmd:npm:npm
cmd:curl:curl
cmd:zsh:zsh
cmd:man:man-db
cmd:cscope:cscope
cmd:cflow:cflow
cmd:c-index-test:clang-tools-14
cmd:faketime:faketime
cmd:pgrep:procps
cmd:java:default-jre-headless
cmd:clojure:clojure
path:/usr/share/zoneinfo/America/Los_Angeles:tzdata
path:/usr/lib/postgresql/15/bin/initdb:postgresql-15
cmd:runuser:util-linux
file:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-14-dev
"
fi

# only for `make bench`: what the benchmarks compare against
if [ "${1:-}" = "--bench" ]; then
  NEEDS="$NEEDS
cmd:lua5.4:lua5.4
cmd:gtags:global
cmd:bear:bear
cmd:autoreconf:autoconf
cmd:aclocal:automake
cmd:libtoolize:libtool
"
fi

missing=""
for need in $NEEDS; do
  kind=${need%%:*}
  rest=${need#*:}
  what=${rest%:*}
  pkg=${rest##*:}
  case $kind in
    cmd) command -v "$what" >/dev/null 2>&1 || missing="$missing $pkg" ;;
    pc) { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$what"; } || missing="$missing $pkg" ;;
    path) [ -e "$what" ] || missing="$missing $pkg" ;;
    file) [ -e "$what" ] || ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing="$missing $pkg" ;;
  esac
done

if [ -z "$missing" ]; then
  exit 0
fi
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "deps: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || true
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >&2
else
  echo "deps: missing packages:$missing" >&2
  echo "deps: run as root: $cmd" >&2
  exit 1
fi
