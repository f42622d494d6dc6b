# Sourced by scripts/test.sh and .ci/run: which files the change under test
# touched, so that the slow checks (deploy/'s module, fuzz exploration) run
# where they can find something. Every test runs on every change; only
# those extra checks are chosen.
#
# The change is what differs between PYHARNESS_CI_BASE (default HEAD~1: on
# a clean clone of main, the last commit, or for a merge all it brought)
# and the working tree, untracked files included. With PYHARNESS_CI_FULL=1
# (a scheduled run sets it) everything counts as changed; with a base git
# cannot resolve (a shallow clone, the first commit, no git), nothing does.

changes_all=0
changed=()
changes_base="${PYHARNESS_CI_BASE:-HEAD~1}"
if [ "${PYHARNESS_CI_FULL:-}" = 1 ]; then
  changes_all=1
  changes_why="PYHARNESS_CI_FULL=1"
elif ! git rev-parse -q --verify "$changes_base^{commit}" >/dev/null 2>&1; then
  # A shallow clone, the first commit, no git: what changed cannot be told,
  # and exploring everything would take CI past its time. The tests still
  # run; PYHARNESS_CI_FULL=1 runs the rest.
  changes_why="no revision $changes_base to compare with, so no extra checks; PYHARNESS_CI_FULL=1 runs them"
else
  mapfile -t changed < <(git diff --name-only "$changes_base" -- && git ls-files --others --exclude-standard)
  changes_why="${#changed[@]} files changed since $changes_base"
fi

# touched PATH...: the change touched one of the files, or a file under one
# of the directories (given with a trailing /).
touched() {
  [ "$changes_all" = 1 ] && return 0
  local f p
  for f in "${changed[@]}"; do
    for p in "$@"; do
      case "$p" in
        */) [[ "$f" == "$p"* ]] && return 0 ;;
        *) [ "$f" = "$p" ] && return 0 ;;
      esac
    done
  done
  return 1
}

# The settings and scripts every build and check goes through.
changes_everywhere=(go.mod go.sum scripts/goenv.sh scripts/changes.sh scripts/test.sh .ci/run)

# deploy_touched: the change touched what deploy/'s tests read: the module
# itself, the image's files, go.mod's go directive, and the collect
# command's flags and exit codes that the manifests use.
deploy_touched() {
  touched "${changes_everywhere[@]}" deploy/ Dockerfile .dockerignore scripts/build.sh \
    cmd/pyharness/cmd_collect.go cmd/pyharness/root.go cmd/pyharness/model_flags.go cmd/pyharness/exitcodes.go
}

# package_touched DIR: the change touched the package in DIR (./harness/draft): a
# file directly in it or under its testdata/ (a fuzz corpus). Packages it
# imports do not count: each has its own targets, and a full run explores
# them all.
package_touched() {
  touched "${changes_everywhere[@]}" && return 0
  local f d
  for f in "${changed[@]}"; do
    d="./$(dirname "$f")"
    d="${d%%/testdata/*}"
    d="${d%/testdata}"
    [ "$d" = "$1" ] && return 0
  done
  return 1
}
