// Package deploy holds no code: its tests check the container image recipe
// (../Dockerfile) and the Kubernetes manifests under k8s/ against the real
// parsers and API types. It is a module of its own so that the Kubernetes
// and BuildKit dependencies stay out of pyharness's own module.
package deploy
