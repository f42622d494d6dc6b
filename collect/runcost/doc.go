// Package runcost adds up what runs cost in model calls, read from their
// traces: the calls made to the model server, the server's time of them,
// the calls whose draft the harness refused, and the runs the stuck rule
// stopped. bench, stats and the report print the same table of it.
package runcost
