// Package procgroup starts a command as the leader of its own process
// group and kills the whole group, so that cancelling a suite or a train
// command also ends what its shell started.
package procgroup
