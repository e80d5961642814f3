#!/usr/bin/env bash
# scripts/build.sh — build a static ./fairbench in the repository root with the
# version from git (or 0.1.0-dev outside a git checkout). Quiet on success.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# A .git that git cannot read (git missing, or "dubious ownership" when root
# builds a clone owned by someone else) would make go build fail on VCS stamping.
if [ -e .git ] && ! git rev-parse --git-dir >/dev/null 2>&1; then
    export GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=false"
fi
version=$(git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X github.com/fairbench/fairbench/internal/version.Version=$version" \
    -o fairbench ./cmd/fairbench
