// Package ordered runs a function over a list on several goroutines and
// hands back the results in the list's order, so that a stage which reads
// and decodes files one at a time can use every core without changing
// what it produces.
package ordered
