#!/usr/bin/env bash
# The pipeline's regression guard: the instructions each stage executes on
# a small fixed corpus, counted by valgrind's callgrind, against the figures
# committed in scripts/instructions.tsv (docs/performance.md).
#
#   scripts/instructions.sh            count and compare: exits 1 when a
#                                      stage grew by more than 10%, naming it
#   scripts/instructions.sh --update   count and write the figures file;
#                                      commit it in a commit that says why
#
# An instruction count does not move with the machine's load the way
# seconds do: a run on a busy machine counts what one on a quiet machine
# does, to about a tenth of a percent. The stages:
#   decode        BenchmarkTraceRead/decode (./collect/synthetic): five
#                 passes of the trace reader over its 3,000 generated turns
#                 (a run of six passes less a run of one, so that the
#                 benchmark's set-up cancels out)
#   classify      pyharness classify on a gen-corpus of 2,000 turns
#   dedupe        pyharness dedupe --dataset on the same corpus
#   export-jsonl  pyharness export --format jsonl --dataset on it
# Each runs with one P, the collector off and asynchronous preemption off
# (callgrind does not follow Go's preemption signal, and RDTSCP, which the
# runtime uses when a lock is contended, is beyond valgrind's decoder;
# --smc-check because sonic runs code it generates), so
# that the count is the work itself.
# Needs valgrind (apt-get install -y valgrind) and Go.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
figures="$root/scripts/instructions.tsv"
limit=10
update=0
case "${1:-}" in
--update) update=1 ;;
"") ;;
*) echo "usage: scripts/instructions.sh [--update]" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "instructions: valgrind is missing (apt-get install -y valgrind)" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/pyharness-instructions.XXXXXX")"
trap 'rm -rf "$work"' EXIT
. "$root/scripts/goenv.sh"
(cd "$root" && go build "${goflags[@]}" -o "$work/pyharness" ./cmd/pyharness &&
  go test "${goflags[@]}" -c -o "$work/synthetic.test" ./collect/synthetic)

# count OUT CMD...: the instructions CMD executes, written to OUT.
count() {
  local out="$1"; shift
  if ! GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 GOGC=off \
    valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file="$work/callgrind.out" "$@" >"$work/cmd.out" 2>"$work/cmd.err"; then
    echo "instructions: $* failed:" >&2
    grep -v '^==' "$work/cmd.err" | tail -20 >&2
    exit 1
  fi
  awk '/^==[0-9]+== Collected : / {print $4}' "$work/cmd.err" >"$out"
  [ -s "$out" ] || { echo "instructions: callgrind printed no count for $*" >&2; exit 1; }
}

declare -A got
bench=("$work/synthetic.test" -test.run '^$' -test.bench '^BenchmarkTraceRead$/^decode$')
count "$work/one" "${bench[@]}" -test.benchtime 1x
count "$work/six" "${bench[@]}" -test.benchtime 6x
got[decode]=$(($(cat "$work/six") - $(cat "$work/one")))

"$work/pyharness" gen-corpus --turns 2000 --seed 1 --out "$work/corpus" >/dev/null
count "$work/n" "$work/pyharness" classify --in "$work/corpus" --out "$work/dataset"
got[classify]=$(cat "$work/n")
count "$work/n" "$work/pyharness" dedupe --in "$work/corpus" --dataset "$work/dataset"
got[dedupe]=$(cat "$work/n")
count "$work/n" "$work/pyharness" export --in "$work/corpus" --dataset "$work/dataset" --format jsonl --out "$work/export"
got[export-jsonl]=$(cat "$work/n")
stages=(decode classify dedupe export-jsonl)

if [ "$update" = 1 ]; then
  {
    echo "# Instructions each pipeline stage executes on a small fixed corpus, counted by"
    echo "# scripts/instructions.sh under callgrind. CI fails when a stage counts more than"
    echo "# $limit% above its figure here. Written by scripts/instructions.sh --update; a change"
    echo "# of these figures goes in a commit that says why."
    for s in "${stages[@]}"; do printf '%s\t%s\n' "$s" "${got[$s]}"; done
  } >"$figures"
  echo "instructions: wrote $figures"
fi

declare -A want
while IFS=$'\t' read -r stage n; do
  [[ -z "$stage" || "$stage" == \#* ]] && continue
  want[$stage]=$n
done <"$figures"

grew=()
printf '%-14s %16s %16s %9s\n' stage instructions committed change
for s in "${stages[@]}"; do
  w="${want[$s]:-}"
  if [ -z "$w" ]; then
    printf '%-14s %16s %16s %9s\n' "$s" "${got[$s]}" "none" ""
    grew+=("$s: no committed figure in scripts/instructions.tsv")
    continue
  fi
  change=$(awk -v n="${got[$s]}" -v w="$w" 'BEGIN {printf "%+.1f%%", 100 * (n - w) / w}')
  printf '%-14s %16s %16s %9s\n' "$s" "${got[$s]}" "$w" "$change"
  if awk -v n="${got[$s]}" -v w="$w" -v l="$limit" 'BEGIN {exit !(n > w * (1 + l / 100))}'; then
    grew+=("$s: ${got[$s]} instructions, $change against the committed $w")
  elif awk -v n="${got[$s]}" -v w="$w" -v l="$limit" 'BEGIN {exit !(n < w * (1 - l / 100))}'; then
    echo "instructions: $s fell by more than $limit%: run scripts/instructions.sh --update and commit the figures, saying why"
  fi
done
if [ ${#grew[@]} -gt 0 ]; then
  echo "instructions: ${#grew[@]} stage(s) grew by more than $limit%:"
  printf '  %s\n' "${grew[@]}"
  exit 1
fi
echo "instructions: every stage within $limit% of its committed figure"
