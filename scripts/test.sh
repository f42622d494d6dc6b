#!/usr/bin/env bash
# The test command of the README: every package's tests (the main module's
# and deploy/'s), then a short, bounded run of every fuzz target so that CI
# exercises them on every change. It ends with the list of tests that were
# skipped; with PYHARNESS_NO_SKIP set (CI sets it) a test whose tool is
# missing fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
go build ./...
# The binary as the container image builds it (Dockerfile), and a smoke run.
bin="$(mktemp -d)/pyharness"
./scripts/build.sh "$bin"
"$bin" version
# gotestsum (a tool of this module: go.mod's tool line) runs go test and ends
# with the skipped tests and the counts. A package's tests may take longer
# than go test's default ten minutes on a loaded machine (the harness's and
# bench's play whole runs through real Python suites).
go tool gotestsum --format pkgname-and-test-fails --format-hide-empty-pkg -- -timeout 20m ./...
# deploy/ is a module of its own (the Kubernetes and BuildKit packages stay
# out of pyharness's): the manifests, decoded strictly, and the Dockerfile.
(cd deploy && go test ./...)

# Every fuzz target of the module, found rather than listed, so a new one is
# fuzzed from its first commit. The budget is a count of executions, not a
# time: with a time, Go 1.26's fuzz coordinator can fail a target that found
# nothing with "context deadline exceeded" when its workers are slow to stop
# on a loaded machine (go.dev/issue/75804, fixed in Go 1.27).
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
  pkg="./$(dirname "${file#./}")"
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    go test "$pkg" -run='^$' -fuzz="^${target}\$" -fuzztime="${FUZZTIME:-100000x}"
  done
done
