package stats

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pyharness/pyharness/classify"
	"github.com/pyharness/pyharness/internal/testkit/needs"
	"github.com/pyharness/pyharness/schemas"
)

// duckDBDir is where scripts/install-duckdb.sh puts @duckdb/node-api.
func duckDBDir() string {
	if d := os.Getenv("PYHARNESS_DUCKDB_DIR"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "pyharness-duckdb")
}

var sqlBlock = regexp.MustCompile("(?s)```sql\n(.*?)```")

// runner is the node script that runs each query and prints the rows as
// JSON, one array per query.
const runner = `
const { createRequire } = require('node:module');
const req = createRequire(process.argv[process.argv.length - 1] + '/');
const { DuckDBInstance } = req('@duckdb/node-api');
(async () => {
  const queries = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const out = [];
  for (const q of queries) {
    const r = await con.runAndReadAll(q);
    out.push(r.getRowObjectsJson());
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(String(e)); process.exit(1); });
`

// TestAnalysisQueriesInDuckDB runs the five queries of docs/analysis.md, as
// written there, with DuckDB on a dataset classified from the fixtures, and
// checks their numbers against stats'.
func TestAnalysisQueriesInDuckDB(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		needs.Missing(t, "node is not installed: the DuckDB queries of docs/analysis.md were not run (apt-get install -y nodejs npm; scripts/install-duckdb.sh)")
	}
	dir, err := filepath.Abs(duckDBDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		needs.Missing(t, "@duckdb/node-api is not installed in %s: the DuckDB queries of docs/analysis.md were not run (scripts/install-duckdb.sh installs it; PYHARNESS_DUCKDB_DIR says where)", dir)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "analysis.md"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dataset := t.TempDir()
	if _, err := classify.Update(ctx, fixtures, dataset); err != nil {
		t.Fatal(err)
	}
	var queries []string
	for _, m := range sqlBlock.FindAllStringSubmatch(string(doc), -1) {
		queries = append(queries, strings.ReplaceAll(m[1], "DATASET", filepath.ToSlash(dataset)))
	}
	if len(queries) != 5 {
		t.Fatalf("docs/analysis.md has %d sql blocks, want the five ready queries", len(queries))
	}
	in, _ := json.Marshal(queries)
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, node, "-e", runner, "--", dir)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("duckdb: %v\n%s", err, stderr.String())
	}
	var results [][]map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
		t.Fatalf("duckdb output: %v\n%s", err, stdout.String())
	}

	s, err := Load(ctx, dataset, Options{By: byModel})
	if err != nil {
		t.Fatal(err)
	}
	num := func(v any) float64 {
		switch v := v.(type) {
		case float64:
			return v
		case string:
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("not a number: %q", v)
			}
			return f
		}
		t.Fatalf("not a number: %#v", v)
		return 0
	}
	str := func(v any) string { return fmt.Sprint(v) }

	// 1. Turn-kind shares.
	kinds := map[string]int{}
	for _, k := range s.Kinds {
		if k.Count > 0 {
			kinds[k.Name] = k.Count
		}
	}
	if len(results[0]) != len(kinds) {
		t.Errorf("turn kinds: duckdb %v, stats %v", results[0], kinds)
	}
	for _, row := range results[0] {
		k := str(row["kind"])
		if int(num(row["turns"])) != kinds[k] {
			t.Errorf("kind %s: duckdb counts %v turns, stats %d", k, row["turns"], kinds[k])
		}
		if want := 100 * float64(kinds[k]) / float64(s.Turns.Total); num(row["pct"]) < want-0.06 || num(row["pct"]) > want+0.06 {
			t.Errorf("kind %s: duckdb says %v%%, stats %.1f%%", k, row["pct"], want)
		}
	}

	// 2. Nudges by code.
	nudges := map[string]int{}
	for _, n := range s.Nudges {
		code := string(n.Code)
		if code == "(no code)" {
			code = ""
		}
		nudges[code] = n.Count
	}
	if len(results[1]) != len(nudges) {
		t.Errorf("nudges: duckdb %v, stats %v", results[1], nudges)
	}
	for _, row := range results[1] {
		if c := str(row["code"]); int(num(row["times"])) != nudges[c] || str(row["a_message"]) == "" {
			t.Errorf("code %s: duckdb %v, stats %d", c, row, nudges[c])
		}
	}

	// 3. Failures by tier.
	if len(results[2]) != len(s.Tiers) {
		t.Errorf("tiers: duckdb %v, stats %v", results[2], s.Tiers)
	}
	for i, row := range results[2] {
		if i >= len(s.Tiers) {
			break
		}
		tf := s.Tiers[i]
		if int(num(row["tier"])) != tf.Tier || int(num(row["failed"])) != tf.Failed || int(num(row["judged"])) != tf.Judged {
			t.Errorf("tier row %v, stats %+v", row, tf)
		}
	}

	// 4 and 5. By model: the partition values come back unescaped.
	groups := map[string]Group{}
	for _, g := range s.By.Groups {
		groups[g.Value] = g
	}
	if _, ok := groups["openai:Qwen/Qwen2.5-Coder-32B"]; !ok {
		t.Fatalf("the fixtures have no hosted-model run: %v", groups)
	}
	for _, q := range []int{3, 4} {
		if len(results[q]) != len(groups) {
			t.Errorf("query %d: duckdb has %d models, stats %d", q+1, len(results[q]), len(groups))
		}
		for _, row := range results[q] {
			g, ok := groups[str(row["model"])]
			if !ok {
				t.Errorf("query %d: model %q is not one stats knows (escaped partition value?)", q+1, row["model"])
				continue
			}
			if int(num(row["runs"])) != g.Runs {
				t.Errorf("query %d, model %s: %v runs, stats %d", q+1, g.Value, row["runs"], g.Runs)
			}
			if q == 3 && int(num(row["turns"])) != g.Turns {
				t.Errorf("model %s: %v turns, stats %d", g.Value, row["turns"], g.Turns)
			}
		}
	}
	noModel, correct := 0, 0
	for _, row := range results[4] {
		if schemas.LabelHandWritten(str(row["model"])) {
			continue // stats scores the runs of models when there are any
		}
		noModel += int(num(row["no_model_steps"]))
		correct += int(num(row["no_model_steps_correct"]))
	}
	if noModel != s.NoModelSteps.Runs || correct != s.NoModelSteps.Correct {
		t.Errorf("no model steps: duckdb %d (%d correct), stats %+v", noModel, correct, s.NoModelSteps)
	}
}
