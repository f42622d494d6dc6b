#!/usr/bin/env bash
# The test command of the README: every package's tests (the main module's
# and deploy/'s), then a short, bounded run of each fuzz target so that CI
# exercises them on every change.
set -euo pipefail
cd "$(dirname "$0")/.."
go build ./...
# The binary as the container image builds it (Dockerfile), and a smoke run.
bin="$(mktemp -d)/pyharness"
./scripts/build.sh "$bin"
"$bin" version
go test ./...
# deploy/ is a module of its own (the Kubernetes and BuildKit packages stay
# out of pyharness's): the manifests, decoded strictly, and the Dockerfile.
(cd deploy && go test ./...)
fuzz() { # package target
  go test "$1" -run='^$' -fuzz="^$2\$" -fuzztime="${FUZZTIME:-20s}"
}
[ -d harness/draft ] && fuzz ./harness/draft FuzzParse
fuzz ./trace FuzzRead
fuzz ./collect FuzzParseManifest
fuzz ./dedupe FuzzAppendLineMatchesBytewise
