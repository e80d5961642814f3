#!/usr/bin/env bash
# scripts/install-kubectl.sh [DIR] — build the pinned kubectl into DIR/kubectl
# (DIR defaults to .bin/ in the repository root), unless DIR already holds that
# version (DIR/kubectl.version). Prints the binary's path.
#
# kubectl is only needed by the test that runs `kubectl apply --dry-run=client`
# on `fairbench k8s render`'s output (FAIRBENCH_TEST_KUBECTL). It is built from
# the Go module proxy like the other Go peers (no distribution download, no
# checksum list to maintain by hand): a throwaway main module requiring
# k8s.io/kubectl at VERSION, whose main is the one kubernetes' own
# cmd/kubectl/kubectl.go has. `go get` resolves the rest of the k8s.io
# modules at the versions k8s.io/kubectl's go.mod asks for. CGO_ENABLED=0
# gives a static binary, as the release one is. From an empty module and
# build cache this takes several minutes (kubectl is large); a second run
# with the same VERSION returns at once.
set -euo pipefail

TOOL=kubectl
VERSION=${KUBECTL_VERSION:-v0.37.2}
MODULE=k8s.io/kubectl
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/go-tool.sh
. "$(dirname "${BASH_SOURCE[0]}")/go-tool.sh"
go_tool_begin "${1:-$REPO_ROOT/.bin}"

mkdir -p "$work/src"
cat >"$work/src/main.go" <<'GO'
// Command kubectl is kubernetes' cmd/kubectl/kubectl.go, built by
// fairbench's scripts/install-kubectl.sh from the Go module proxy.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"

	// Client auth plugins (exec, OIDC), as the release kubectl has.
	_ "k8s.io/client-go/plugin/pkg/client/auth"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
GO
(
    cd "$work/src"
    export GOFLAGS="-modcacherw -buildvcs=false" GOWORK=off
    go mod init fairbench.local/kubectl >/dev/null 2>&1
    go get "$MODULE@$VERSION" >/dev/null
    go mod tidy >/dev/null
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X k8s.io/client-go/pkg/version.gitVersion=${VERSION/v0./v1.} -X k8s.io/component-base/version.gitVersion=${VERSION/v0./v1.}" -o "$work/kubectl" .
) || die "building kubectl $VERSION failed"
go_tool_finish "$work/kubectl"
