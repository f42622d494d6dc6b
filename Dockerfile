# syntax=docker/dockerfile:1
# The pyharness image: the binary, git, python3 and python3-pytest, run as a
# user that is not root. docs/collect.md says how to build, push and run it.
#
#   docker build --build-arg COMMIT=$(git rev-parse HEAD) -t REGISTRY/pyharness:TAG .
#
# The build stage runs the commands CI runs (.ci/run, scripts/test.sh), and
# deploy/dockerfile_test.go keeps them so.

FROM golang:1.26-trixie AS build
WORKDIR /src
# The module cache is a layer of its own: it changes only with go.sum.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG COMMIT=""
RUN ./scripts/build.sh /out/pyharness "$COMMIT"

FROM debian:trixie-slim
# git: the harness diffs every run with it and clones dogfood repositories;
# python3 and python3-pytest: the suites of the benchmark and most dogfood
# repositories; ca-certificates: git clones over https.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git python3 python3-pytest \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 --user-group pyharness
COPY --from=build /out/pyharness /usr/local/bin/pyharness
USER 10001:10001
WORKDIR /home/pyharness
ENTRYPOINT ["pyharness"]
CMD ["--help"]
