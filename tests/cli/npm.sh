# npm.sh: installs a test's JavaScript client from the npm registry, pinned by the
# package.json and lock file in its directory (npm ci), the first time a test needs it.
# Sourced by the scripts that drive quarry with a real client (06_mcp.sh, 19_lsp.sh,
# 28_mcp_http.sh) after lib.sh.
#
# npm_install DIR PACKAGE WHAT: makes sure DIR/node_modules/PACKAGE is there. It is
# installed into a directory of its own, then renamed into place, so that two test runs at
# once (the release and the sanitizer build) never see half of it. Exits the script with
# a failure when npm ci fails (WHAT names the client in the message).
npm_install() {
  dir=$1 pkg=$2 what=$3
  [ -f "$dir/node_modules/$pkg/package.json" ] && return 0
  stage="$dir/.install.$$"
  mkdir -p "$stage"
  cp "$dir/package.json" "$dir/package-lock.json" "$stage/"
  if ! (cd "$stage" && npm ci --no-audit --no-fund --loglevel=error >"$TMP/npm.log" 2>&1); then
    echo "FAIL: npm ci of $what failed:"; sed 's/^/  /' "$TMP/npm.log"
    rm -rf "$stage"
    exit 1
  fi
  [ -d "$dir/node_modules" ] || mv "$stage/node_modules" "$dir/node_modules"
  rm -rf "$stage" # (lost a race: another run's is in place)
}
