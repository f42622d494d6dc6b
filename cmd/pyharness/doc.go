// Command pyharness runs coding tasks on Python repositories with local or
// hosted language models, records every turn, and turns the records into
// fine-tuning data.
package main
