// Package loop runs the fine-tuning loop as one job: bench the base model,
// export a teacher's worked runs for it, train with the user's own trainer,
// import the result into Ollama, bench again, and compare.
//
// Each stage writes into its own directory under the loop's output
// directory and is recorded in loop.json there: a stage recorded done is
// skipped when the loop is run again; a stage recorded running (the job
// was killed in it) or failed is redone from scratch. A tool the loop
// needs and does not find (the trainer's program, an Ollama server, an F32
// model for llama-finetune) is named, with what it needs, before any
// stage starts; the loop never reports a stage it did not run.
package loop
