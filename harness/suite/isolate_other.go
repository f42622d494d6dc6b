//go:build !linux

package suite

import (
	"context"
	"errors"
)

// isolationPrefix fails: isolation is made with Linux namespaces.
func isolationPrefix(ctx context.Context) ([]string, error) {
	return nil, errors.New("isolate: --isolate needs Linux user and network namespaces (unshare); run without it on this system")
}
