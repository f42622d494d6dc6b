package ordered

import (
	"iter"
	"sync"
)

// Map yields f(in[i]) for every i in order, computing up to workers of
// them at once and at most 4×workers ahead of the consumer, so memory
// stays bounded by the window, not by the list. With workers ≤ 1 it
// calls f in the consumer's goroutine. Stopping early stops the workers.
func Map[T, R any](in []T, workers int, f func(T) R) iter.Seq2[int, R] {
	return MapAhead(in, workers, 4*workers, f)
}

// MapAhead is Map computing at most window results ahead of the consumer
// (at least workers). A consumer whose own work comes in bursts (a
// Parquet row group flushed now and then) wants a window that holds the
// results made during a burst, or the workers wait while it works.
func MapAhead[T, R any](in []T, workers, window int, f func(T) R) iter.Seq2[int, R] {
	return func(yield func(int, R) bool) {
		if workers <= 1 || len(in) <= 1 {
			for i, x := range in {
				if !yield(i, f(x)) {
					return
				}
			}
			return
		}
		window = max(window, workers)
		slots := make([]chan R, window)
		for i := range slots {
			slots[i] = make(chan R, 1)
		}
		tokens := make(chan struct{}, window)
		for range window {
			tokens <- struct{}{}
		}
		jobs := make(chan int)
		done := make(chan struct{})
		var wg sync.WaitGroup
		defer func() {
			close(done)
			wg.Wait()
		}()
		wg.Add(1)
		go func() { // hands out index i only once i-window was consumed
			defer wg.Done()
			defer close(jobs)
			for i := range in {
				select {
				case <-tokens:
				case <-done:
					return
				}
				select {
				case jobs <- i:
				case <-done:
					return
				}
			}
		}()
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range jobs {
					r := f(in[i])
					select {
					case slots[i%window] <- r:
					case <-done:
						return
					}
				}
			}()
		}
		for i := range in {
			r := <-slots[i%window]
			tokens <- struct{}{}
			if !yield(i, r) {
				return
			}
		}
	}
}
