// Package rawtext lays the rows of a JSONL export out as the text that
// raw-text trainers read: each conversation rendered through the student's
// chat template, in one plain file (llama.cpp's llama-finetune -f) or as
// {"text": …} rows (mlx-lm's text format).
//
// A raw-text trainer learns every token of the text it is given: it cannot
// tell the prompt from the draft, so the harness's prompt, and any earlier
// draft in it, is trained along with the accepted draft at the end. The
// README.md it writes says so. The template itself is behind Renderer, so
// that any engine that renders a model's chat template plugs in.
package rawtext
