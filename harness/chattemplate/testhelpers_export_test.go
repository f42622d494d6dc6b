package chattemplate

import "testing"

// What chattemplate_test (which can import export and the collection
// packages without an import cycle) uses of this package's test machinery.

// LoadTemplateFile loads a template with the test tokens and clock, the
// same in Go and in the Python renderer.
func LoadTemplateFile(t testing.TB, path string) *Template { return loadTemplateFile(t, path) }

// NeedJinja2 skips, or fails under PYHARNESS_NO_SKIP, without Debian's
// python3-jinja2.
func NeedJinja2(t testing.TB) { needJinja2(t) }

// AssertRendersExportDir renders every row of an export directory under tp
// and checks it independently of Check (assertRendersRow); it returns the
// number of rows.
func AssertRendersExportDir(t *testing.T, tp *Template, dir string) int {
	t.Helper()
	rows := readExportDir(t, dir)
	for _, r := range rows {
		assertRendersRow(t, tp.Name+" "+r.where, tp, r.line)
	}
	return len(rows)
}

// PyBatch gathers renders of export rows to compare Go with Python jinja2
// in one Python process.
type PyBatch struct{ b pyBatch }

// AddExportDir queues every row of an export directory under tp.
func (p *PyBatch) AddExportDir(t testing.TB, tp *Template, name, dir string) {
	t.Helper()
	for _, r := range readExportDir(t, dir) {
		p.b.add(t, tp, tp.Name+" "+name+"/"+r.where, r.line)
	}
}

// Compare renders the batch in Go and Python, failing t on any difference;
// it returns the renders compared and how many agreed.
func (p *PyBatch) Compare(t testing.TB) (renders, same int) {
	t.Helper()
	return len(p.b.renders), p.b.compare(t)
}
