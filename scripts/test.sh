#!/usr/bin/env bash
# The test command of the README: every package's tests (each fuzz target's
# seeds and corpus among them), the binary as the image builds it, deploy/'s
# tests, and a bounded exploration of the fuzz targets. deploy/'s tests and
# the exploration run when the change touched what they check
# (scripts/changes.sh; PYHARNESS_CI_FULL=1 runs them all). Every step runs
# even when one before it failed; the script ends naming those that failed.
# It lists the tests that were skipped; with PYHARNESS_NO_SKIP set (CI sets
# it) a test whose tool is missing fails instead, and no result comes from
# go test's cache.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/goenv.sh
. scripts/changes.sh
failed=()

# gotestsum (a tool of this module: go.mod's tool line) runs go test and ends
# with the skipped tests and the counts. A package's tests may take longer
# than go test's default ten minutes on a loaded machine (the harness's and
# bench's play whole runs through real Python suites). It runs as the binary
# `go tool -n` names, since `go tool` exits 0 when the tool it ran is killed
# by a signal (Go 1.26), which would pass a run that never finished.
count=()
[ -n "${PYHARNESS_NO_SKIP:-}" ] && count=(-count=1)
gotestsum="$(go tool -n gotestsum)" && "$gotestsum" --format pkgname-and-test-fails --format-hide-empty-pkg -- "${goflags[@]}" -timeout 20m "${count[@]}" ./... || failed+=("go test ./...")

# The binary as the container image builds it (Dockerfile), and a smoke
# run that prints the commit it was built from. It is built after the
# tests, whose compiles it reuses from the build cache, so that the first
# test result does not wait for a build of its own.
bin="$(mktemp -d)/pyharness"
./scripts/build.sh "$bin" && "$bin" version || failed+=("the binary (scripts/build.sh, pyharness version)")

# deploy/ is a module of its own (the Kubernetes and BuildKit packages stay
# out of pyharness's): the manifests, decoded strictly, and the Dockerfile.
if deploy_touched; then
  (cd deploy && go test "${goflags[@]}" "${count[@]}" ./...) || failed+=("go test ./... in deploy/")
else
  echo "deploy/: not tested, the change did not touch what its tests read ($changes_why)"
fi

# Fuzz targets are found rather than listed, so a new one is explored from
# its first commit; one explores when the change touched its package. The
# budget is a count of executions, not a time: with a time, Go 1.26's fuzz
# coordinator can fail a target that found nothing with "context deadline
# exceeded" when its workers are slow to stop on a loaded machine
# (go.dev/issue/75804, fixed in Go 1.27).
targets=0 explored=0
while read -r file; do
  pkg="./$(dirname "${file#./}")"
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    targets=$((targets + 1))
    package_touched "$pkg" || continue
    explored=$((explored + 1))
    go test "${goflags[@]}" "$pkg" -run='^$' -fuzz="^${target}\$" -fuzztime="${FUZZTIME:-100000x}" </dev/null || failed+=("fuzz $pkg $target")
  done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | sort)
echo "fuzz: explored $explored of $targets targets ($changes_why); every target's seeds and corpus ran in go test"

if [ ${#failed[@]} -gt 0 ]; then
  echo "scripts/test.sh: ${#failed[@]} step(s) failed:"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
