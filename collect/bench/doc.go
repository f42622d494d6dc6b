// Package bench runs the embedded benchmark cases for N passes and reports
// what worked, what failed and why, and how big a gap the sample resolves,
// so that noise is never reported as a result.
package bench
