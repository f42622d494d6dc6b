// Package collect runs the benchmark cases and dogfooded repositories for N
// passes, concurrently and resumably, recording every run as a trace.
package collect
