#!/usr/bin/env bash
# scripts/k8s-cluster.sh — a single-node Kubernetes on loopback for fairbench's
# cluster tests (issue 55), from upstream parts only: Debian's etcd-server,
# containerd, runc and CNI plugins, and kube-apiserver, kube-controller-manager,
# kube-scheduler and kubelet built from the Go module proxy (scripts/k8s-build.sh,
# cached in ~/.cache/fairbench/k8s-<version>).
#
#   bash scripts/k8s-cluster.sh start     # builds when not cached, starts, waits for the node
#   bash scripts/k8s-cluster.sh env       # export KUBECONFIG=… and FAIRBENCH_TEST_K8S_*=…
#   bash scripts/k8s-cluster.sh stop      # stops every process it started, removes its pods' containers
#   bash scripts/k8s-cluster.sh image     # (re)imports the fairbench image from this checkout
#
# Everything lives under K8S_STATE (default /tmp/fairbench-k8s): certificates,
# etcd's data, containerd's root, the kubelet's root, logs, pids. Nothing is
# installed into /etc or /var/lib of the host beyond Debian's packages. Ports
# (loopback only): etcd 23790/23800, API server 16443, kubelet 10350, the
# controller manager's and scheduler's health ports 10357/10359.
#
# The sandbox image is fairbench's own pause (internal/testenv/pause):
# registry.k8s.io is out of reach of a machine with only the package
# registries. The fairbench image is scripts/image.sh --oci, imported into
# containerd as fairbench.local/fairbench:test (imagePullPolicy Never or
# IfNotPresent finds it). These machines run cgroup v1: the kubelet gets
# failCgroupV1: false and the cgroupfs driver. A process here may not lower
# its oom_score_adj (the kubelet gives a pod's sandbox -998, which runc then
# fails to set: "can't get final child's PID from pipe"), so containerd clamps
# the scores to its own (restrict_oom_score_adj, as for rootless containerd).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE=${K8S_STATE:-/tmp/fairbench-k8s}
# The node is named by its address, 127.0.0.1: the kubelet refuses a loopback
# --node-ip ("nodeIP can't be loopback address", and the node then has no
# address at all: logs and exec fail with "no preferred addresses found"), but
# takes an IP given as --hostname-override for the node's InternalIP
# (pkg/kubelet/nodestatus/setters.go, NodeAddress, step 2) without that check.
NODE=${K8S_NODE:-127.0.0.1}
API_PORT=16443
IMAGE=fairbench.local/fairbench:test
PAUSE=fairbench.local/pause:1
say() { echo "k8s-cluster: $*" >&2; }
die() { echo "k8s-cluster: ERROR: $*" >&2; exit 1; }

kubeconfig() { # NAME CERT KEY: a kubeconfig for one client certificate
    cat > "$STATE/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: fairbench
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$STATE/pki/ca.crt"}
users:
- name: $1
  user: {client-certificate: "$STATE/pki/$2.crt", client-key: "$STATE/pki/$3.key"}
contexts:
- name: fairbench
  context: {cluster: fairbench, user: $1}
current-context: fairbench
EOF
}

cert() { # NAME CN [O] [SAN]: a key and a certificate signed by the cluster's CA
    local name=$1 cn=$2 o=${3:-} san=${4:-}
    local subj="/CN=$cn"; [ -n "$o" ] && subj="/O=$o$subj"
    openssl req -newkey rsa:2048 -nodes -keyout "$STATE/pki/$name.key" -subj "$subj" \
        -out "$STATE/pki/$name.csr" 2>/dev/null
    local ext="$STATE/pki/$name.ext"
    { echo "basicConstraints=CA:FALSE"; echo "keyUsage=digitalSignature,keyEncipherment"
      echo "extendedKeyUsage=serverAuth,clientAuth"; [ -n "$san" ] && echo "subjectAltName=$san"; } > "$ext"
    openssl x509 -req -in "$STATE/pki/$name.csr" -CA "$STATE/pki/ca.crt" -CAkey "$STATE/pki/ca.key" \
        -CAcreateserial -days 7 -extfile "$ext" -out "$STATE/pki/$name.crt" 2>/dev/null
}

pki() {
    [ -f "$STATE/pki/done" ] && return
    mkdir -p "$STATE/pki"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$STATE/pki/ca.key" -out "$STATE/pki/ca.crt" \
        -days 7 -subj "/CN=fairbench-test-ca" 2>/dev/null
    cert apiserver kube-apiserver "" "IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
    cert admin admin system:masters
    cert apiserver-kubelet kube-apiserver-kubelet-client system:masters
    cert controller-manager system:kube-controller-manager
    cert scheduler system:kube-scheduler
    cert kubelet "system:node:$NODE" system:nodes "IP:127.0.0.1,DNS:localhost"
    openssl genrsa -out "$STATE/pki/sa.key" 2048 2>/dev/null
    openssl rsa -in "$STATE/pki/sa.key" -pubout -out "$STATE/pki/sa.pub" 2>/dev/null
    kubeconfig admin admin admin
    kubeconfig controller-manager controller-manager controller-manager
    kubeconfig scheduler scheduler scheduler
    kubeconfig kubelet kubelet kubelet
    touch "$STATE/pki/done"
}

started() { [ -f "$STATE/$1.pid" ] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }

launch() { # NAME CMD...: started in the background, its log in STATE/NAME.log
    local name=$1; shift
    if started "$name"; then return; fi
    setsid "$@" > "$STATE/$name.log" 2>&1 < /dev/null &
    echo $! > "$STATE/$name.pid"
}

wait_for() { # WHAT SECONDS CMD...
    local what=$1 secs=$2; shift 2
    for _ in $(seq "$secs"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
    die "$what not ready after $secs s (logs in $STATE)"
}

containerd_config() {
    containerd config default |
        sed -e "s#^root = .*#root = \"$STATE/containerd/root\"#" \
            -e "s#^state = .*#state = \"$STATE/containerd/state\"#" \
            -e "/^\[grpc\]/,/^\[/ s#^  address = .*#  address = \"$STATE/containerd.sock\"#" \
            -e "/^\[grpc\]/,/^\[/ s#^  tcp_address = .*#  tcp_address = \"\"#" \
            -e "s#sandbox_image = .*#sandbox_image = \"$PAUSE\"#" \
            -e "s#restrict_oom_score_adj = false#restrict_oom_score_adj = true#" \
            -e "s#bin_dir = .*#bin_dir = \"/usr/lib/cni\"#" \
            -e "s#conf_dir = .*#conf_dir = \"$STATE/cni\"#" > "$STATE/containerd.toml"
    mkdir -p "$STATE/cni"
    cat > "$STATE/cni/10-fairbench.conflist" <<'EOF'
{"cniVersion": "0.4.0", "name": "fairbench", "plugins": [
  {"type": "bridge", "bridge": "fbk8s0", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.244.0.0/24"}]]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}
EOF
}

ctr_() { ctr -a "$STATE/containerd.sock" -n k8s.io "$@"; }

import_images() {
    local oci
    if ! ctr_ images ls -q | grep -qx "$PAUSE"; then
        oci=$(mktemp -d); rmdir "$oci"
        (cd "$ROOT" && go run ./cmd/fairbench-image --oci "$oci" --pkg ./internal/testenv/pause --tag "$PAUSE" --ca-bundle "") >/dev/null 2>&1 ||
            die "building the pause image failed (go run ./cmd/fairbench-image --pkg ./internal/testenv/pause)"
        tar -C "$oci" -cf "$oci.tar" . && ctr_ images import "$oci.tar" >/dev/null && rm -rf "$oci" "$oci.tar"
    fi
    oci=$(mktemp -d); rmdir "$oci"
    (cd "$ROOT" && go run ./cmd/fairbench-image --oci "$oci" --tag "$IMAGE") >/dev/null 2>&1 ||
        die "building the fairbench image failed (scripts/image.sh --oci DIR --tag $IMAGE)"
    tar -C "$oci" -cf "$oci.tar" . && ctr_ images import "$oci.tar" >/dev/null && rm -rf "$oci" "$oci.tar"
    say "images in containerd: $PAUSE, $IMAGE"
}

kubelet_config() {
    cat > "$STATE/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: 10350
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10348
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: "$STATE/pki/ca.crt"}
authorization: {mode: AlwaysAllow}
tlsCertFile: "$STATE/pki/kubelet.crt"
tlsPrivateKeyFile: "$STATE/pki/kubelet.key"
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: "unix://$STATE/containerd.sock"
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
maxPods: 30
resolvConf: /etc/resolv.conf
serializeImagePulls: false
EOF
}

# missing_parts prints the Debian packages of the node's parts this machine
# lacks, one per line.
missing_parts() {
    local c
    for c in etcd:etcd-server containerd:containerd runc:runc ctr:containerd openssl:openssl; do
        command -v "${c%%:*}" >/dev/null || echo "${c#*:}"
    done | sort -u
    [ -x /usr/lib/cni/bridge ] || echo containernetworking-plugins
}

start() {
    local bin need
    # The node's parts come from Debian; a fresh machine has none of them.
    need=$(missing_parts)
    if [ -n "$need" ]; then
        APT_CALLER=k8s-cluster
        # shellcheck source=scripts/apt.sh
        . "$ROOT/scripts/apt.sh"
        # shellcheck disable=SC2086 # one word per package
        apt_install $need
        need=$(missing_parts)
        [ -z "$need" ] || die "still missing after apt-get install: $(echo $need)"
    fi
    if [ "${K8S_NO_BUILD:-0}" = 1 ]; then
        bin=${K8S_CACHE:-$HOME/.cache/fairbench/k8s-${K8S_VERSION:-1.34.4}}/bin
        [ -x "$bin/kubelet" ] || die "no cached binaries in $bin (K8S_NO_BUILD=1; run scripts/k8s-build.sh)"
    else
        bin=$(bash "$ROOT/scripts/k8s-build.sh")/bin
    fi
    mkdir -p "$STATE"
    pki
    launch etcd etcd --data-dir "$STATE/etcd" --listen-client-urls http://127.0.0.1:23790 \
        --advertise-client-urls http://127.0.0.1:23790 --listen-peer-urls http://127.0.0.1:23800 \
        --initial-advertise-peer-urls http://127.0.0.1:23800 --initial-cluster default=http://127.0.0.1:23800
    wait_for "etcd" 60 curl -sf http://127.0.0.1:23790/health
    launch apiserver "$bin/kube-apiserver" --etcd-servers=http://127.0.0.1:23790 \
        --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port=$API_PORT \
        --client-ca-file="$STATE/pki/ca.crt" --tls-cert-file="$STATE/pki/apiserver.crt" \
        --tls-private-key-file="$STATE/pki/apiserver.key" \
        --kubelet-client-certificate="$STATE/pki/apiserver-kubelet.crt" \
        --kubelet-client-key="$STATE/pki/apiserver-kubelet.key" --kubelet-preferred-address-types=InternalIP,Hostname \
        --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$STATE/pki/sa.pub" \
        --service-account-signing-key-file="$STATE/pki/sa.key" --authorization-mode=Node,RBAC \
        --service-cluster-ip-range=10.96.0.0/24 --allow-privileged=true
    wait_for "kube-apiserver" 120 kubectl --kubeconfig "$STATE/admin.kubeconfig" get --raw /readyz
    launch controller-manager "$bin/kube-controller-manager" --kubeconfig="$STATE/controller-manager.kubeconfig" \
        --bind-address=127.0.0.1 --secure-port=10357 --service-account-private-key-file="$STATE/pki/sa.key" \
        --root-ca-file="$STATE/pki/ca.crt" --cluster-signing-cert-file="$STATE/pki/ca.crt" \
        --cluster-signing-key-file="$STATE/pki/ca.key" --use-service-account-credentials=true \
        --leader-elect=false --controllers='*,-nodeipam'
    launch scheduler "$bin/kube-scheduler" --kubeconfig="$STATE/scheduler.kubeconfig" \
        --bind-address=127.0.0.1 --secure-port=10359 --leader-elect=false
    containerd_config
    launch containerd containerd --config "$STATE/containerd.toml"
    wait_for "containerd" 30 ctr_ version
    import_images
    kubelet_config
    launch kubelet "$bin/kubelet" --config="$STATE/kubelet.yaml" --kubeconfig="$STATE/kubelet.kubeconfig" \
        --root-dir="$STATE/kubelet" --hostname-override="$NODE"
    wait_for "the node $NODE" 120 sh -c "kubectl --kubeconfig '$STATE/admin.kubeconfig' get node '$NODE' -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
    # The default service account appears once the controller manager runs; pods wait for it.
    wait_for "the default service account" 60 kubectl --kubeconfig "$STATE/admin.kubeconfig" get serviceaccount default
    say "ready: $("$bin/kube-apiserver" --version), node $NODE; KUBECONFIG=$STATE/admin.kubeconfig"
}

stop() {
    [ -d "$STATE" ] || { say "not running ($STATE is absent)"; return; }
    local name pid
    for name in kubelet scheduler controller-manager apiserver; do
        if started "$name"; then kill "$(cat "$STATE/$name.pid")" 2>/dev/null || true; fi
    done
    if started containerd; then
        # The pods' containers: killed and removed through containerd, which
        # started them, before containerd itself stops.
        for c in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s SIGKILL "$c" >/dev/null 2>&1 || true; done
        sleep 1
        for c in $(ctr_ containers ls -q 2>/dev/null); do ctr_ tasks rm -f "$c" >/dev/null 2>&1 || true; ctr_ containers rm "$c" >/dev/null 2>&1 || true; done
        kill "$(cat "$STATE/containerd.pid")" 2>/dev/null || true
    fi
    if started etcd; then kill "$(cat "$STATE/etcd.pid")" 2>/dev/null || true; fi
    for name in kubelet scheduler controller-manager apiserver containerd etcd; do
        [ -f "$STATE/$name.pid" ] || continue
        pid=$(cat "$STATE/$name.pid")
        for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$STATE/$name.pid"
    done
    # Mounts under STATE only (containerd's snapshots, the kubelet's volumes).
    { grep -o " $STATE/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
    ip link delete fbk8s0 2>/dev/null || true
    if [ "${1:-}" = "--purge" ]; then rm -rf "$STATE"; fi
    say "stopped"
}

case ${1:-} in
start) start ;;
stop) shift; stop "$@" ;;
image) import_images ;;
env)
    [ -f "$STATE/admin.kubeconfig" ] || die "no cluster in $STATE: bash scripts/k8s-cluster.sh start"
    echo "export KUBECONFIG='$STATE/admin.kubeconfig'"
    echo "export FAIRBENCH_TEST_K8S_KUBECONFIG='$STATE/admin.kubeconfig'"
    echo "export FAIRBENCH_TEST_K8S_IMAGE='$IMAGE'" ;;
*) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
