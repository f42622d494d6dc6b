package httpwatch

import (
	"context"
	"errors"
	"io"
	"net/url"
	"syscall"

	"github.com/pyharness/pyharness/harness/model"
)

// Interrupted classifies an attempt that ended because the caller
// cancelled (ctx) or the attempt went idle (actx, from Start); nil when
// neither happened. Both backends ask this first: it decides whatever the
// client library made of the interruption.
func Interrupted(ctx, actx context.Context, err error) *model.Error {
	switch {
	case ctx.Err() != nil:
		return &model.Error{Code: model.CodeCancelled, Message: context.Cause(ctx).Error(), Err: err}
	case timedOut(actx):
		return model.NewError(model.CodeTimeout, errIdle.Error(), err)
	}
	return nil
}

// Dropped classifies what the transport saw go wrong below the client
// library: a refused connection, or a body cut mid-stream (which client
// libraries may report as a partial line, or not at all). nil when neither.
func Dropped(ex *Exchange, err error) *model.Error {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return model.NewError(model.CodeConnectionRefused, err.Error(), err)
	}
	if rerr := ex.ReadErr(); rerr != nil {
		return model.NewError(model.CodeStreamCut, "the connection dropped mid-stream: "+rerr.Error(), err)
	}
	return nil
}

// Unreachable classifies any other failure to get an answer at all (DNS,
// TLS, a refused connection): the client library's *url.Error. nil for
// other errors. A connection the server closed or reset after it took the
// request (EOF where the status line should be: the server died while it
// loaded the model or read the prompt, or a kept-alive connection it had
// dropped) reached the server: it is a dropped stream, not a refusal.
func Unreachable(err error) *model.Error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return model.NewError(model.CodeStreamCut, "the server closed the connection before it answered: "+err.Error(), err)
	}
	return model.NewError(model.CodeConnectionRefused, err.Error(), err)
}
