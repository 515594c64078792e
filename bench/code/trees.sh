#!/usr/bin/env bash
# trees.sh -- the C trees of bench/code/exactness.py's table, each with its project's own
# compile_commands.json.
#
# Usage: bench/code/trees.sh OUT SRC [NAME...]   (SRC holds git mirrors named as under
#        /work/.mirror: madler+zlib, lua+lua, jqlang+jq, redis+redis, libevent+libevent,
#        curl+curl, nginx+nginx, tmux+tmux, each a bare repository or with repo/; NAMEs pick trees, all by default)
#
# For each project: OUT/b-NAME is the release built under Debian's `bear` after its own
# configure step (zlib ./configure; Lua its makefile; jq autoreconf + ./configure
# --without-oniguruma; redis make MALLOC=libc; libevent, held out, its cmake configure,
# which writes the generated include/event2/event-config.h that most of its files need
# and a compile command for every library, test and sample file; curl, held out,
# autoreconf + ./configure without TLS and optional libraries), and OUT/NAME the
# measured tree (zlib, Lua and libevent whole, jq and redis their src/, curl its lib/) as
# a git repository with the build's compile_commands.json rebased onto it by compdb.py.
# Then:
#   python3 bench/code/exactness.py build/quarry OUT/NAME
# nginx 1.31.4's src/ (held out for issue 23's calls work, scored once at its end): its
# auto/configure without the modules that need PCRE or zlib, the generated objs/ headers
# left in OUT/b-nginx.
# tmux at c1f947a3c (held out for issue 23's second calls round, scored once at its end):
# the whole tree with compat/, its autogen.sh + ./configure, which puts the configuration in
# -D options (no config.h).
# libuv v1.52.1 (held out for issue 23 after stop 37's Janet work, first scored on 3310fc7): the whole
# tree, its cmake configure writing compile_commands.json.
# Needs bear, autoconf, automake, libtool (scripts/deps.sh --bench); tmux also libevent-dev,
# libncurses-dev and bison.
set -euo pipefail
[ $# -ge 2 ] || { sed -n 4,7p "$0" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
src=$2
shift 2
only=" $* "
here=$(cd "$(dirname "$0")" && pwd)
git_dir() { if [ -d "$src/$1/repo" ]; then echo "$src/$1/repo"; else echo "$src/$1"; fi; }
one() { # NAME MIRROR TAG SUBDIR BUILD...
  local name=$1 mirror=$2 tag=$3 sub=$4
  shift 4
  [ "$only" = "  " ] || case $only in *" $name "*) ;; *) return 0 ;; esac
  rm -rf "$out/b-$name" "$out/$name"
  mkdir -p "$out/b-$name" "$out/$name"
  git --git-dir="$(git_dir "$mirror")" archive "$tag" | tar -x -C "$out/b-$name"
  local tree=$tag
  [ "$sub" = . ] || tree="$tag:$sub"
  git --git-dir="$(git_dir "$mirror")" archive "$tree" | tar -x -C "$out/$name"
  (cd "$out/b-$name" && eval "$*") >"$out/b-$name.log" 2>&1
  (cd "$out/$name" && git init -q && git add -A && git -c user.name=bench -c user.email=bench@localhost commit -qm "$tag")
  python3 "$here/compdb.py" "$out/b-$name" "$sub" "$out/$name"
}
one zlib madler+zlib v1.3.1 . './configure && bear -- make -j2'
one lua lua+lua v5.4.7 . 'bear -- make -j2'
one jq jqlang+jq jq-1.7.1 src 'autoreconf -i && ./configure --without-oniguruma --disable-docs --disable-maintainer-mode && bear -- make -j2'
one redis redis+redis 7.2.4 src 'bear -- make -j2 MALLOC=libc BUILD_TLS=no'
# libevent 2.1.12, held out: configured only (what clang needs is the generated header)
one libevent libevent+libevent release-2.1.12-stable . 'cmake -S . -B bld -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DEVENT__DISABLE_OPENSSL=ON -DEVENT__DISABLE_MBEDTLS=ON -DCMAKE_BUILD_TYPE=Release && cp bld/compile_commands.json .'
# curl 8.20.0, held out: libcurl without TLS or optional libraries
one curl curl+curl curl-8_20_0 lib 'autoreconf -fi && ./configure --without-ssl --without-libpsl --without-nghttp2 --without-libidn2 --without-brotli --without-zstd --disable-ldap --disable-docs && bear -- make -j2'
# nginx 1.31.4, held out: its src/, configured without PCRE and zlib
one nginx nginx+nginx release-1.31.4 src './auto/configure --without-http_rewrite_module --without-http_gzip_module && bear -- make -j2'
# tmux at c1f947a3c, held out: configured with its defaults
one tmux tmux+tmux c1f947a3c5bc72a40c32dead736f84c4628791ec . 'sh autogen.sh && ./configure && bear -- make -j2'
# libuv v1.52.1, held out: configured with its defaults
one libuv libuv+libuv v1.52.1 . 'cmake -S . -B bld -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Release && cp bld/compile_commands.json .'
