// Package sfttokens turns exported training rows into the token ids a
// trainer trains on, and marks which of them it trains.
//
// A row is rendered through the model's chat template as transformers'
// apply_chat_template renders it, and the spans to train are found the way
// an assistant-only trainer finds them: the conversation is rendered up to
// each trained assistant message with the generation prompt, then with the
// message, and the text between is that message as trained (its content and
// the template's end-of-turn token). Each piece of text is tokenized with the
// model's own tokenizer (read from its GGUF), so a span's tokens are exactly
// that message's. This is the one place the project decides which tokens a
// row trains: the PyTorch trainer in scripts/ reads what Write produces, and
// the export's tests read Spans to check a layout against a trainer.
package sfttokens
