#!/usr/bin/env bash
# scripts/image.sh — build the fairbench container image (the Dockerfile in the
# repository root: a static binary on distroless static, user 65532).
#
#   scripts/image.sh [--platform linux/amd64,linux/arm64] [--tag TAG] [--push]
#   scripts/image.sh --oci DIR [--platform …] [--tag TAG]
#
# With a container engine it uses, in this order: docker buildx (multi-arch
# through --platform; --push sends it to the registry named in TAG), podman,
# buildah. Without --push a multi-platform build stays in the engine's build
# cache with docker buildx (the Docker engine's image store holds one platform;
# give one --platform, or --push).
#
# --oci DIR needs no engine: cmd/fairbench-image cross-builds the binary with
# the Go toolchain and writes an OCI image layout into DIR (one layer:
# /fairbench, /etc/passwd with nonroot 65532, /tmp, the build machine's CA
# bundle). Then, for instance:
#   skopeo copy oci:DIR:TAG docker-daemon:TAG      # into a Docker engine
#   skopeo copy oci:DIR:TAG docker://REGISTRY/fairbench:TAG
#   crane push DIR REGISTRY/fairbench:TAG
# (a single-platform layout can also go through `tar -C DIR -cf - . | docker load`
# on Docker 25 or later, which reads OCI layouts).
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'image: %s\n' "$*" >&2; }
die() { printf 'image: ERROR: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

platform="" tag="fairbench:latest" push=0 oci=""
while [ $# -gt 0 ]; do
    case $1 in
        --platform) [ $# -ge 2 ] || die "--platform needs a value"; platform=$2; shift 2 ;;
        --tag) [ $# -ge 2 ] || die "--tag needs a value"; tag=$2; shift 2 ;;
        --push) push=1; shift ;;
        --oci) [ $# -ge 2 ] || die "--oci needs a directory"; oci=$2; shift 2 ;;
        -h|--help) usage ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done

cd "$REPO_ROOT"
version=$(git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)

if [ -n "$oci" ]; then
    [ "$push" -eq 0 ] || die "--push with --oci: push the layout with skopeo or crane (see --help)"
    exec go run ./cmd/fairbench-image --oci "$oci" --platform "${platform:-linux/$(go env GOARCH)}" --tag "$tag" --version "$version"
fi

if command -v docker >/dev/null 2>&1 && docker buildx version >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    args=(buildx build --build-arg "VERSION=$version" -t "$tag")
    [ -z "$platform" ] || args+=(--platform "$platform")
    if [ "$push" -eq 1 ]; then
        args+=(--push)
    elif [ -z "$platform" ] || [[ $platform != *,* ]]; then
        args+=(--load)
    else
        log "a multi-platform build without --push stays in the buildx cache (the engine's store holds one platform)"
    fi
    log "docker ${args[*]} ."
    exec docker "${args[@]}" .
fi

# podman and buildah build a manifest list for several platforms with --manifest.
for engine in podman buildah; do
    command -v "$engine" >/dev/null 2>&1 || continue
    args=(build --build-arg "VERSION=$version")
    if [ -n "$platform" ]; then
        args+=(--platform "$platform" --manifest "$tag")
    else
        args+=(-t "$tag")
    fi
    [ "$engine" = buildah ] && args=(bud "${args[@]:1}")
    log "$engine ${args[*]} ."
    "$engine" "${args[@]}" -f Dockerfile .
    if [ "$push" -eq 1 ]; then
        if [ -n "$platform" ]; then
            "$engine" manifest push --all "$tag" "docker://$tag"
        else
            "$engine" push "$tag"
        fi
    fi
    exit 0
done

die "no container engine: docker (with buildx and a running daemon), podman or buildah is needed; or use --oci DIR, which needs only Go"
