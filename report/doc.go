// Package report renders a stats summary as one self-contained HTML page:
// the stats tables and five inline SVG bar charts (turn-kind shares, pass
// rate per tier, failures by class, worked per pass, turns per run), with
// inline CSS, no script, and a content security policy that forbids loading
// anything, so the file opens the same anywhere, offline.
package report
