// Package learn learns how a model writes its tool calls and its
// reasoning from the model's own chat template, the way llama.cpp's
// autoparser does: it renders probe conversations (an assistant turn
// with and without a call, with one call and with two, with a plain and a
// hard argument value, with and without reasoning) and reads from the
// differences where the calls open and close, where the name goes, how
// the arguments are written (a JSON object, a JSON string, one field per
// argument as key and value tags, parameter elements, a Python call or the
// template's own notation), how calls are separated, which marks enclose
// reasoning, and whether the generation prompt opens it. The result is a
// draft.Syntax, which draft.ParseWith tries before its general readers.
// Syntaxes are cached by the digest of the template's source.
package learn
