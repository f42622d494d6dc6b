#!/usr/bin/env bash
# Builds the pyharness binary: the one recipe CI (scripts/test.sh) and the
# container image (Dockerfile) both use, so the image ships what CI tested.
# usage: scripts/build.sh OUT [COMMIT]
# COMMIT is stamped into the binary for builds without the .git directory
# (the image's build context leaves it out); the harness commit is part of
# every run_start record.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/build.sh OUT [COMMIT]}"
ldflags=""
if [ -n "${2:-}" ]; then
  ldflags="-X github.com/pyharness/pyharness/internal/version.Commit=$2"
fi
# Static and -trimpath, the settings the tests build with (scripts/goenv.sh).
. scripts/goenv.sh
go build "${goflags[@]}" -ldflags "$ldflags" -o "$out" ./cmd/pyharness
