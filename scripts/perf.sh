#!/usr/bin/env bash
# Measures the pipeline on a generated corpus (docs/performance.md):
#   scripts/perf.sh [TURNS] [WORKDIR]
# TURNS defaults to 1000000, WORKDIR to ${TMPDIR:-/tmp}/pyharness-perf-TURNS.
# It builds pyharness, generates TURNS turns with gen-corpus, then runs
# classify, dedupe, export --format parquet, export --format jsonl and stats
# under /usr/bin/time -v, and the same turn-kind-share query with DuckDB
# (over the classified Parquet, and over the raw traces with read_json_auto
# and with read_ndjson) and with jq over the raw traces. It prints one
# table: stage, wall seconds, turns/s, peak RSS and CPU seconds (user +
# system: on a shared machine wall time says as much about the neighbours).
# Before it come the four goals of docs/performance.md, each a ratio to a
# limit measured in the same run, so that they hold or not whatever the
# machine and its load: BenchmarkTraceRead's decode against a raw read of
# the same bytes (≤ 2×); classify's CPU seconds against DuckDB's
# read_json_auto pass over the traces (< 1×); classify + dedupe +
# export-jsonl against jq's one pass over the traces (< 0.5×); stats on the
# dataset against DuckDB's query of the Parquet (≤ 0.5×). Each stage's row
# carries its ratio to the tool it is measured against, and the load
# average before and after is printed. WORKDIR is
# removed at the end unless KEEP=1.
# Needs /usr/bin/time (apt-get install -y time), jq (apt-get install -y jq),
# Go (for the benchmark), and node and npm for DuckDB
# (scripts/install-duckdb.sh, run by this script).
set -euo pipefail
turns="${1:-1000000}"
work="${2:-${TMPDIR:-/tmp}/pyharness-perf-$turns}"
root="$(cd "$(dirname "$0")/.." && pwd)"
[ -x /usr/bin/time ] || { echo "perf: /usr/bin/time is missing (apt-get install -y time)" >&2; exit 1; }
command -v jq >/dev/null || { echo "perf: jq is missing (apt-get install -y jq)" >&2; exit 1; }

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$work"
mkdir -p "$work"
bin="$work/pyharness"
(cd "$root" && go build -o "$bin" ./cmd/pyharness)
corpus="$work/corpus"
dataset="$work/dataset"
log="$work/log"
mkdir -p "$log"
names=()
declare -A wall_of cpu_of line_of

# measure NAME CMD...: runs CMD under /usr/bin/time -v, its output in
# $log/NAME.out, and adds a row to the table.
measure() {
  local name="$1"; shift
  if ! /usr/bin/time -v -o "$log/$name.time" "$@" >"$log/$name.out" 2>"$log/$name.err"; then
    echo "perf: $name failed:" >&2
    tail -20 "$log/$name.err" >&2
    exit 1
  fi
  local wall rss cpu
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$log/$name.time")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log/$name.time")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$log/$name.time")
  names+=("$name")
  wall_of[$name]=$wall
  cpu_of[$name]=$cpu
  line_of[$name]="$(awk -v n="$name" -v w="$wall" -v r="$rss" -v t="$turns" -v c="$cpu" 'BEGIN {
    tps = (w > 0) ? t / w : 0
    printf "%-16s %9.2f %10.0f %10.1f %9.2f", n, w, tps, r / 1024, c }')"
}

# ratio NAME REF: NAME's wall and CPU time over REF's, or nothing when
# either was not measured.
ratio() {
  [ -n "${wall_of[$2]:-}" ] || return 0
  awk -v w="${wall_of[$1]}" -v rw="${wall_of[$2]}" -v c="${cpu_of[$1]}" -v rc="${cpu_of[$2]}" -v ref="$2" 'BEGIN {
    if (rw > 0 && rc > 0) printf "  %5.2f× %s (CPU %.2f×)", w / rw, ref, c / rc }'
}

measure gen-corpus "$bin" gen-corpus --turns "$turns" --out "$corpus"
measure classify "$bin" classify --in "$corpus" --out "$dataset"
# dedupe takes classify's fingerprints from the dataset (--dataset): the
# pipeline decodes each trace once.
measure dedupe "$bin" dedupe --in "$corpus" --dataset "$dataset"
# The corpus is labelled ollama/gen-corpus:synthetic, so export selects it
# as a real model's runs: no --include-scripted. export's first pass takes
# what classify stored of each run from the dataset (--dataset), and
# decodes only the runs it writes rows from.
measure export-parquet "$bin" export --in "$corpus" --dataset "$dataset" --format parquet --out "$work/export-parquet"
measure export-jsonl "$bin" export --in "$corpus" --dataset "$dataset" --format jsonl --out "$work/export-jsonl"
measure stats-dataset "$bin" stats --in "$dataset" --json
measure stats-traces "$bin" stats --in "$corpus" --json

# The same question four ways: the share of each turn kind. DuckDB asks
# it of the classified Parquet (what stats answers from) and, as an
# analyst who skips classify would, of the raw traces: with
# read_json_auto, which infers every column, and with read_ndjson and only
# the two columns the query needs named.
duck="${PYHARNESS_DUCKDB_DIR:-${TMPDIR:-/tmp}/pyharness-duckdb}"
if command -v node >/dev/null && command -v npm >/dev/null; then
  "$root/scripts/install-duckdb.sh" "$duck" >/dev/null
  cat >"$work/duckdb.js" <<'JS'
const { createRequire } = require('node:module');
const req = createRequire(process.argv[2] + '/');
const { DuckDBInstance } = req('@duckdb/node-api');
(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const r = await con.runAndReadAll(process.argv[3]);
  process.stdout.write(JSON.stringify(r.getRowObjectsJson()) + '\n');
})().catch((e) => { console.error(String(e)); process.exit(1); });
JS
  measure duckdb-kinds node "$work/duckdb.js" "$duck" "SELECT kind, count(*) AS turns
    FROM read_parquet('$dataset/turns/**/*.parquet', hive_partitioning = true)
    GROUP BY kind ORDER BY turns DESC, kind"
  measure duckdb-auto node "$work/duckdb.js" "$duck" "SELECT sent.kind AS kind, count(*) AS turns
    FROM read_json_auto('$corpus/runs/*.jsonl') WHERE type = 'turn'
    GROUP BY 1 ORDER BY turns DESC, kind"
  measure duckdb-ndjson node "$work/duckdb.js" "$duck" "SELECT sent.kind AS kind, count(*) AS turns
    FROM read_ndjson('$corpus/runs/*.jsonl', columns = {type: 'VARCHAR', sent: 'STRUCT(kind VARCHAR)'})
    WHERE type = 'turn' GROUP BY 1 ORDER BY turns DESC, kind"
else
  echo "perf: node and npm are not installed: the DuckDB queries were not timed (apt-get install -y nodejs npm)" >&2
fi
measure jq-kinds sh -c "find '$corpus/runs' -name '*.jsonl' -print0 | xargs -0 cat | jq -c -n 'reduce (inputs | select(.type == \"turn\") | .sent.kind) as \$k ({}; .[\$k] += 1)'"

# The trace reader against a raw read of the same files, in one run of the
# benchmark (a shared machine's load moves both alike), three times each:
# the medians.
bench="$(cd "$root" && go test ./collect/synthetic -run '^$' -bench '^BenchmarkTraceRead$' -count 3)"
median_mbs() {
  awk -v name="$1" '$1 ~ "^BenchmarkTraceRead/" name "-" {for (i = 1; i <= NF; i++) if ($(i+1) == "MB/s") print $i}' <<<"$bench" |
    sort -n | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}'
}
raw_mbs="$(median_mbs raw)"
decode_mbs="$(median_mbs decode)"

# ratio_line WHAT NUM DEN GOAL OP: "WHAT: NUM ÷ DEN = R× (goal OP GOAL×: holds|missed)".
ratio_line() {
  awk -v what="$1" -v n="$2" -v d="$3" -v goal="$4" -v op="$5" 'BEGIN {
    if (n == "" || d == "" || d + 0 <= 0) { printf "%s: not measured\n", what; exit }
    r = n / d
    ok = (op == "<") ? (r < goal) : (r <= goal)
    printf "%-44s %6.2f×  (goal %s %.1f×: %s)\n", what, r, (op == "<") ? "<" : "≤", goal, ok ? "holds" : "missed" }'
}
pipe_wall="$(awk -v c="${wall_of[classify]}" -v d="${wall_of[dedupe]}" -v e="${wall_of[export-jsonl]}" 'BEGIN {print c + d + e}')"
pipe_cpu="$(awk -v c="${cpu_of[classify]}" -v d="${cpu_of[dedupe]}" -v e="${cpu_of[export-jsonl]}" 'BEGIN {print c + d + e}')"
decode_x="$(awk -v r="$raw_mbs" -v d="$decode_mbs" 'BEGIN { if (r > 0 && d > 0) print r / d }')"

echo "pyharness perf: $turns turns, $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
echo "load average (1, 5, 15 min): $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo
echo "ratios, each to the limit measured in this run:"
ratio_line "trace decode ÷ raw read of the same bytes" "$decode_x" 1 2 "<="
ratio_line "classify CPU ÷ duckdb-auto CPU" "${cpu_of[classify]}" "${cpu_of[duckdb-auto]:-}" 1 "<"
ratio_line "classify + dedupe + export-jsonl ÷ jq-kinds" "$pipe_wall" "${wall_of[jq-kinds]}" 0.5 "<"
ratio_line "stats-dataset ÷ duckdb-kinds" "${wall_of[stats-dataset]}" "${wall_of[duckdb-kinds]:-}" 0.5 "<="
echo
echo "corpus: $(du -sh "$corpus/runs" | cut -f1) of traces, $(du -sh "$dataset" | cut -f1) classified"
printf "%-16s %9s %10s %10s %9s  %s\n" stage "wall s" "turns/s" "peak MiB" "CPU s" "time ÷ the limit's (wall, CPU)"
for n in "${names[@]}"; do
  case "$n" in
  stats-dataset) echo "${line_of[$n]}$(ratio "$n" duckdb-kinds)" ;;
  stats-traces) echo "${line_of[$n]}$(ratio "$n" jq-kinds)" ;;
  classify) echo "${line_of[$n]}$(ratio "$n" jq-kinds)$(ratio "$n" duckdb-auto)" ;;
  dedupe | export-parquet | export-jsonl) echo "${line_of[$n]}$(ratio "$n" jq-kinds)" ;;
  duckdb-ndjson) echo "${line_of[$n]}$(ratio "$n" duckdb-auto)" ;;
  *) echo "${line_of[$n]}" ;;
  esac
done
awk -v w="$pipe_wall" -v c="$pipe_cpu" -v jw="${wall_of[jq-kinds]}" -v jc="${cpu_of[jq-kinds]}" 'BEGIN {
  printf "classify + dedupe + export-jsonl: %.2f s wall, %.2f CPU s: %.2f× jq-kinds (CPU %.2f×)\n", w, c, w / jw, c / jc }'
echo
awk -v r="$raw_mbs" -v d="$decode_mbs" 'BEGIN {
  if (r > 0 && d > 0) printf "trace read (BenchmarkTraceRead, 3,000 turns, medians of 3): raw read %.1f MB/s, decode %.1f MB/s: decode ÷ raw read %.2f× the time\n", r, d, r / d
  else print "trace read: BenchmarkTraceRead printed no MB/s" }'
echo
echo "turn kinds: stats $(jq -c '[.kinds[] | {(.name): .count}] | add' "$log/stats-dataset.out")"
for q in duckdb-kinds duckdb-auto duckdb-ndjson; do
  [ -f "$log/$q.out" ] && printf '            %-13s %s\n' "$q" "$(jq -c 'map({(.kind): (.turns | tonumber)}) | add' "$log/$q.out")"
done
echo "            jq $(cat "$log/jq-kinds.out")"
echo "dedupe: $(grep -E '^(raw turns|exact-unique|near-unique)' "$log/dedupe.out" | awk '{$1=$1}1' | paste -sd ';' -)"

if [ "${KEEP:-0}" != 1 ]; then
  rm -rf "$work"
else
  echo "kept $work"
fi
