# Sourced by scripts/build.sh, scripts/test.sh and .ci/run: the one set of
# build settings for the binary, vet and the tests, so that each package
# compiles once and the tests test what the image ships. Static (no cgo):
# the runtime image needs no libc match; -trimpath: the binary holds no path
# of the machine that built it (and a clean clone's builds hit the cache).
# -trimpath goes on each command line, not into GOFLAGS, which the tests'
# own go commands (suites of Go projects) would inherit.
export CGO_ENABLED=0
goflags=(-trimpath)
