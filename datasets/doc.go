// Package datasets holds the fifteen benchmark cases, embedded in the binary,
// and reads them.
//
// Each case lives in cases/<id>/:
//
//	case.yaml   the task, targets, required names, scope, suite and the
//	            expected outcome of each script
//	repo/       the fixture repository the model works on; its suite passes
//	            as it is
//	check/      the hidden checks, a unittest directory run after the agent
//	            ends (cwd = the workspace, the workspace on PYTHONPATH); the
//	            model never sees it, and they fail on the untouched repo
//	scripts/    scripted model drafts, JSON Lines of {"content": reply}, one
//	            line a model turn: clean, chatty, plausible-wrong and
//	            other-failure
//
// The scripts follow the harness's text protocol and each ends on a harness
// decision (an accepted DONE or a stop rule), so the benchmark runs end to end
// with the scripted backend. The package tests run every case with the real
// python3: the suite passes at baseline, the hidden checks fail there, and
// each script, played against a model of the harness's guards, ends with the
// outcome its case.yaml expects.
package datasets
