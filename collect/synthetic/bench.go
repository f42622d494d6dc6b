package synthetic

// ScriptedBench is the profile of the scripted benchmark the generator was
// fitted to (go run ./cmd/pyharness bench --model scripted --repeat 4, as
// Measure read it); gen-corpus --bench DIR measures a fresh one instead.
func ScriptedBench() *Profile {
	return &Profile{
		Runs: 60, Turns: 299,
		TurnsPerRun:  Dist{N: 60, Mean: 4.98, P50: 5, P90: 8, Max: 8},
		Kinds:        map[string]int{"opening": 60, "refusal-or-nudge": 41, "tool-result": 198},
		Verbs:        map[string]int{"DONE": 67, "PATCH": 30, "READ": 71, "RUN": 52, "WRITE": 79},
		Verdicts:     map[string]int{"failed": 33, "worked": 27},
		MessageBytes: Dist{N: 598, Mean: 518.7, P50: 132, P90: 2005, Max: 2678},
		DraftBytes:   Dist{N: 299, Mean: 271.3, P50: 85, P90: 878, Max: 1600},
		DiskBytes:    842980, BytesPerTurn: 2819.3,
	}
}
