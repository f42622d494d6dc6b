#!/usr/bin/env bash
# Installs DuckDB for the test that runs the queries of docs/analysis.md
# (report/stats/duckdb_test.go): the npm package @duckdb/node-api, which ships
# DuckDB's binary (the older "duckdb" package builds from source and fails
# here). It goes into a cache directory outside the repository:
#   $1, else $PYHARNESS_DUCKDB_DIR, else ${TMPDIR:-/tmp}/pyharness-duckdb
# and the test finds it there through the same rule.
set -euo pipefail
dir="${1:-${PYHARNESS_DUCKDB_DIR:-${TMPDIR:-/tmp}/pyharness-duckdb}}"
command -v npm >/dev/null || { echo "install-duckdb: npm is not installed (apt-get install -y nodejs npm)" >&2; exit 1; }
mkdir -p "$dir"
if [ -d "$dir/node_modules/@duckdb/node-api" ]; then
  echo "install-duckdb: @duckdb/node-api is already in $dir"
  exit 0
fi
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error @duckdb/node-api
echo "install-duckdb: installed @duckdb/node-api in $dir"
