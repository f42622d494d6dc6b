// Package model holds what every model backend shares: the request and reply
// a backend exchanges with the harness, the typed error that says which
// transport or client fault ended a call, and the retry loop that records
// every attempt.
//
// The backends live in subpackages, one each (ollama, openai, scripted,
// replay), and all have the same method set:
//
//	Chat(ctx context.Context, req model.Request) (model.Reply, error)
//	Info(ctx context.Context) (model.Info, error)
//
// A backend's Chat retries transport faults itself (through Retry), so the
// Reply it returns lists every attempt, and a failure is always an *Error
// carrying the same list.
package model
