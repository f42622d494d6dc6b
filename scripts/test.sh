#!/usr/bin/env bash
# The test command of the README: every package's tests, then a short,
# bounded run of each fuzz target so that CI exercises them on every change.
set -euo pipefail
cd "$(dirname "$0")/.."
go build ./...
go test ./...
fuzz() { # package target
  go test "$1" -run='^$' -fuzz="^$2\$" -fuzztime="${FUZZTIME:-20s}"
}
[ -d harness/draft ] && fuzz ./harness/draft FuzzParse
fuzz ./harness FuzzApplyHunks
fuzz ./trace FuzzRead
fuzz ./collect FuzzParseManifest
fuzz ./dedupe FuzzAppendLineMatchesBytewise
