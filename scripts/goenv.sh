# Sourced by scripts/build.sh, scripts/test.sh and .ci/run: the one set of
# build settings for the binary, vet and the tests, so that each package
# compiles once and the tests test what the image ships. Static (no cgo):
# the runtime image needs no libc match; -trimpath: the binary holds no path
# of the machine that built it (and a clean clone's builds hit the cache).
export CGO_ENABLED=0
GOFLAGS="$(go env GOFLAGS)"
case " $GOFLAGS " in
  *" -trimpath "*) ;;
  *) GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath" ;;
esac
export GOFLAGS
