#!/usr/bin/env bash
# Checks the Node versions the README claims, as a new user would meet them: for each version,
# Node comes from the npm registry (the package node@N installs node-<os>-<arch>, which holds the
# binary and the headers), a fresh copy of the repository is installed with native modules built
# against those headers, then build, typecheck, the tests, the demo, and the SQLite paths run as
# separate processes (examples/resume-sqlite.ts, then `harness-kit inspect` and `eval` on the
# database it wrote): a native module that aborts at exit shows up only in a process of its own.
#
#   npm run test:node-matrix                 # the lines the README claims: Node 20, 22 and 24
#   npm run test:node-matrix -- 24 26        # any majors (or exact versions) the registry has
#
# MATRIX_SOURCE=worktree copies the working tree (uncommitted files included) instead of cloning
# HEAD; MATRIX_STEPS limits the steps (default "build typecheck test demo sqlite");
# MATRIX_KEEP=1 keeps the temporary folder with every log.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSIONS=("$@")
[ ${#VERSIONS[@]} -gt 0 ] || VERSIONS=(20 22 24) # keep in step with the README ("tested on")
STEPS=(${MATRIX_STEPS:-build typecheck test demo sqlite})
WORK="$(mktemp -d "${TMPDIR:-/tmp}/harness-kit-node-matrix.XXXXXX")"
LOGS="$WORK/logs"
mkdir -p "$LOGS"
if [ "${MATRIX_KEEP:-}" = 1 ]; then
  echo "node-matrix: keeping $WORK"
else
  trap 'rm -rf "$WORK"' EXIT
fi

strip_ansi() { sed -E 's/\x1b\[[0-9;]*[A-Za-z]//g' "$1"; }
seconds_since() { echo $(($(date +%s) - $1)); }

# Runs one step; prints its cell for the table and leaves the log in $LOGS/<version>-<step>.log.
run_step() {
  local version="$1" step="$2" log="$LOGS/$1-$2.log" start rc cell
  start=$(date +%s)
  case "$step" in
    build | typecheck | test | demo) npm run --silent "$step" >"$log" 2>&1 ;;
    sqlite) sqlite_paths >"$log" 2>&1 ;;
    *) echo "unknown step $step" >"$log"; false ;;
  esac
  rc=$?
  if [ "$rc" -eq 0 ]; then cell="pass"; else cell="**FAIL (exit $rc)**"; fi
  if [ "$step" = test ]; then
    # vitest's summary line, e.g. "Tests  667 passed | 7 skipped (674)"
    local counts
    counts=$(strip_ansi "$log" | grep -E '^ +Tests +[0-9]' | tail -1 | sed -E 's/^ +Tests +//; s/ \([0-9]+\)$//; s/ \| /, /g')
    [ -n "$counts" ] && cell="$cell: $counts"
  fi
  grep -q 'Assertion failed' "$log" && cell="$cell, assertion at exit"
  echo "$cell ($(seconds_since "$start")s)"
}

# The three SQLite paths, each in its own process: the example writes a database, the CLI reads it.
sqlite_paths() {
  local tmp db
  tmp="$(mktemp -d)"
  TMPDIR="$tmp" npx --no-install tsx examples/resume-sqlite.ts || return $?
  db="$(find "$tmp" -name threads.sqlite | head -1)"
  [ -n "$db" ] || { echo "examples/resume-sqlite.ts wrote no threads.sqlite"; return 1; }
  node dist/cli/main.js inspect --sqlite "$db" --thread job-7 || return $?
  node dist/cli/main.js eval --sqlite "$db" --thread job-7 --jsonl || return $?
  rm -rf "$tmp"
}

# Fetches Node <version> into $WORK/node-<version>; prints the folder that holds bin/node and include/node.
fetch_node() {
  local version="$1" dir="$WORK/node-$1" header
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund "node@$version" >"$LOGS/$version-fetch.log" 2>&1 || return 1
  # node@N's preinstall installs node-<os>-<arch>@N beside it: the binary and include/node
  header="$(find "$dir/node_modules" -path '*/include/node/node_api.h' -print -quit)"
  [ -n "$header" ] || { echo "node@$version brought no include/node headers (see $LOGS/$version-fetch.log)" >>"$LOGS/$version-fetch.log"; return 1; }
  dirname "$(dirname "$(dirname "$header")")"
}

declare -a ROWS
for version in "${VERSIONS[@]}"; do
  echo "node-matrix: Node $version: fetching" >&2
  home="$(fetch_node "$version")" || { ROWS+=("| $version | **cannot fetch node@$version** (see the log) |"); continue; }
  exact="$("$home/bin/node" --version)"
  repo="$WORK/repo-$version"
  if [ "${MATRIX_SOURCE:-head}" = worktree ]; then
    mkdir -p "$repo" && (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$repo" 2>/dev/null)
  else
    git clone --quiet "$ROOT" "$repo"
  fi
  echo "node-matrix: Node $exact: installing" >&2
  (
    cd "$repo" || exit 1
    # Everything below runs on this Node (npm's own `#!/usr/bin/env node` included), and node-gyp
    # builds native modules against its headers, not the machine's (the env beats any .npmrc).
    export PATH="$home/bin:$PATH" npm_config_nodedir="$home"
    start=$(date +%s)
    # `npm install` honours the same lock when `npm ci` refuses it (see .ci/run)
    if npm ci --no-audit --no-fund >"$LOGS/$version-install.log" 2>&1 || npm install --no-audit --no-fund >>"$LOGS/$version-install.log" 2>&1; then
      install="pass ($(seconds_since "$start")s)"
    else
      echo "| $exact | **install failed** (see the log) |"
      exit 0
    fi
    # the driver that loads on this Node (the repository's better-sqlite3 is a stand-in that picks one)
    driver="$(node -e '
      const loaded = require("better-sqlite3");
      const alias = ["better-sqlite3-13", "better-sqlite3-12"].find((name) => { try { return require(name) === loaded; } catch { return false; } });
      console.log(require(`${alias ?? "better-sqlite3"}/package.json`).version);' 2>/dev/null || echo "does not load")"
    row="| $exact | $driver | $install"
    for step in "${STEPS[@]}"; do
      echo "node-matrix: Node $exact: $step" >&2
      row="$row | $(run_step "$version" "$step")"
    done
    echo "$row |"
  ) >"$LOGS/$version-row.txt"
  ROWS+=("$(cat "$LOGS/$version-row.txt")")
  rm -rf "$repo" "$WORK/node-$version" # a copy with node_modules is ~0.5 GB: keep only the logs
done

echo
echo "| Node | better-sqlite3 | install |$(printf ' %s |' "${STEPS[@]}")"
echo "|---|---|---|$(printf -- '---|%.0s' "${STEPS[@]}")"
printf '%s\n' "${ROWS[@]}"
echo
[ "${MATRIX_KEEP:-}" = 1 ] && echo "logs: $LOGS"
# Non-zero when any cell failed, so the script can gate a release.
case "${ROWS[*]}" in *FAIL* | *failed* | *cannot*) exit 1 ;; esac
