package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// startProfiles starts the profiles the environment asks for, for
// performance work (docs/performance.md):
//
//	PYHARNESS_CPUPROFILE=FILE  a CPU profile of the whole command
//	PYHARNESS_MEMPROFILE=FILE  a heap profile taken at the command's peak
//	                           live heap (checked every half second)
//
// The returned function stops them and writes what is left to write.
func startProfiles(getenv func(string) string, stderr *os.File) func() {
	var stops []func()
	if path := getenv("PYHARNESS_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "pyharness: PYHARNESS_CPUPROFILE: %v\n", err)
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := getenv("PYHARNESS_MEMPROFILE"); path != "" {
		done := make(chan struct{})
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
			var peak uint64
			tick := time.NewTicker(500 * time.Millisecond)
			defer tick.Stop()
			for {
				metrics.Read(sample)
				if live := sample[0].Value.Uint64(); live > peak+peak/20 {
					peak = live
					if err := writeHeapProfile(path); err != nil {
						fmt.Fprintf(stderr, "pyharness: PYHARNESS_MEMPROFILE: %v\n", err)
						return
					}
				}
				select {
				case <-done:
					return
				case <-tick.C:
				}
			}
		}()
		stops = append(stops, func() { close(done); <-finished })
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// pipelineGCPercent is the GOGC the data pipeline's commands (classify,
// dedupe, export, stats) run with unless GOGC is set. They keep a small
// live heap while allocating a decoded record per trace line, so at Go's
// default of 100 the collector runs very often; 400 trades a peak heap
// about twice as high for much less collecting (docs/performance.md has
// the figures).
const pipelineGCPercent = 400

// tunePipelineGC sets pipelineGCPercent when the environment does not set
// GOGC.
func tunePipelineGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(pipelineGCPercent)
	}
}
