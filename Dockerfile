# The fairbench image: one static binary that is study runner, load generator
# and coordinator (`fairbench k8s render` writes the manifests that run it).
# scripts/image.sh builds it (docker buildx, podman or buildah; or, with no
# container engine, an OCI layout written by cmd/fairbench-image).
#
# Multi-arch: the builder runs on the build machine's platform and
# cross-compiles for TARGETOS/TARGETARCH (set by buildx for each --platform),
# which is fast and needs no emulation: fairbench is pure Go (CGO_ENABLED=0).
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS=linux
ARG TARGETARCH=amd64
ARG VERSION=0.1.0-dev
WORKDIR /src
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH GOFLAGS=-buildvcs=false \
    go build -trimpath \
    -ldflags "-s -w -X github.com/fairbench/fairbench/internal/version.Version=$VERSION" \
    -o /out/fairbench ./cmd/fairbench

# distroless static: CA certificates (TLS to targets and the results store),
# tzdata, /etc/passwd with the nonroot user 65532, and no shell or package
# manager. The pods run with a read-only root and HOME=/tmp (an emptyDir).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/fairbench /fairbench
USER 65532:65532
ENTRYPOINT ["/fairbench"]
