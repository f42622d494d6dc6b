#!/usr/bin/env bash
# Builds the pyharness binary: the one recipe CI (scripts/test.sh) and the
# container image (Dockerfile) both use, so the image ships what CI tested.
# usage: scripts/build.sh OUT [COMMIT]
# COMMIT is stamped into the binary; without it, the checkout's commit
# (git rev-parse HEAD) is, since Go's own VCS stamp is absent from builds
# with -buildvcs=false in GOFLAGS and from some git worktrees, and the
# image's build context has no .git directory at all. The harness commit
# is part of every run_start record.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/build.sh OUT [COMMIT]}"
commit="${2:-$(git rev-parse HEAD 2>/dev/null || true)}"
ldflags=""
if [ -n "$commit" ]; then
  ldflags="-X github.com/pyharness/pyharness/internal/version.Commit=$commit"
fi
# Static and -trimpath, the settings the tests build with (scripts/goenv.sh).
. scripts/goenv.sh
go build "${goflags[@]}" -ldflags "$ldflags" -o "$out" ./cmd/pyharness
