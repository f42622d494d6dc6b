// Package wholefile reads a file whole into a reused buffer and tells
// whether it has changed since, by its stamp (size, modification and
// change times, inode and device): the trace reader reads every trace
// through it, and the stages that keep what they derived from a trace
// (package derivedcache) key it by the stamp the trace was read with.
package wholefile
