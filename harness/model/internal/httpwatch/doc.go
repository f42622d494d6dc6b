// Package httpwatch watches the HTTP exchanges of the model backends from
// below their client libraries: the status and headers of each answer
// (which the libraries keep to themselves), whether the body ended in a
// transport error (a cut stream), and whether the server went silent for
// longer than an idle timeout, which cancels the request.
//
// A whole-request timeout would be wrong for a model: a long answer
// streams for minutes and is healthy as long as bytes keep coming.
package httpwatch
