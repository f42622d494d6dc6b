// Package countcache counts a classified dataset's rows by their columns: the
// turns and the runs of each partition, grouped by the values stats
// breaks them down by, without reading the rows one by one. Classify
// writes a small counts file beside each part file when it commits
// (WriteCounts); Turns and Runs read a part file's counts from it while it
// is fresh, and count its column chunks otherwise. ClaimedDone lists the
// runs that failed claiming DONE, the first ClaimedDonePerPart of each
// part file.
package countcache
