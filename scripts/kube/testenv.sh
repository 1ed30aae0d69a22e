#!/usr/bin/env bash
# A real Kubernetes control plane on loopback for the kube tests: etcd, kube-apiserver and
# kube-controller-manager (the Job controller is the one under test). No kubelet or container runtime
# runs here; tests/kube/node_runner.ts plays the node. Binaries are built once from the Kubernetes Go
# modules and cached under .kube-testenv/ (override with KUBE_TESTENV_DIR).
#
#   scripts/kube/testenv.sh build   # install etcd-server if missing, build the binaries (cached)
#   scripts/kube/testenv.sh up      # build if needed, then start everything; prints the kubeconfig path
#   scripts/kube/testenv.sh down    # stop what `up` started
#   scripts/kube/testenv.sh status
#
# A real node, opt-in (root; it changes host state, all of it undone by node-down, which node-up's failure runs too):
#   scripts/kube/testenv.sh build-node  # also kube-scheduler and kubelet
#   scripts/kube/testenv.sh node-up [image.oci.tar …]   # control plane + scheduler + kubelet with containerd and runc;
#                                       # imports the images; prints the kubeconfig path
#   scripts/kube/testenv.sh node-down   # stops everything, removes what node-up added to the host
# Every address stays on this machine: an interface the script creates (KUBE_TESTENV_NODE_IP, 10.231.0.1),
# a pod bridge (10.231.1.0/24) and the pods' network namespaces; nothing listens on another interface.
#
# KUBE_TESTENV_RUN (state, certificates, logs; default $DIR/run), KUBE_TESTENV_API_PORT (16443) and
# KUBE_TESTENV_ETCD_PORT (12379, and the next port for peers) let several instances run side by side.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="${KUBE_TESTENV_DIR:-$ROOT/.kube-testenv}"
K8S_VERSION="${KUBE_TESTENV_K8S_VERSION:-v1.37.2}"
STAGING_VERSION="v0${K8S_VERSION#v1}"
BIN="$DIR/bin"
RUN="${KUBE_TESTENV_RUN:-$DIR/run}"
PKI="$RUN/pki"
API_PORT="${KUBE_TESTENV_API_PORT:-16443}"
ETCD_PORT="${KUBE_TESTENV_ETCD_PORT:-12379}"
ETCD_PEER_PORT=$((ETCD_PORT + 1))

log() { echo "testenv: $*" >&2; }

etcd_bin() {
  if command -v etcd >/dev/null 2>&1; then command -v etcd; return; fi
  log "installing etcd-server (Debian package)"
  if ! apt-get install -y -qq etcd-server >/dev/null 2>&1; then
    apt-get update -qq >/dev/null && apt-get install -y -qq etcd-server >/dev/null
  fi
  command -v etcd
}

# $@: the commands to build (default: the control plane's two; `build-node` adds the scheduler and kubelet).
build() {
  local cmds=("${@:-kube-apiserver kube-controller-manager}")
  read -r -a cmds <<<"${cmds[*]}"
  etcd_bin >/dev/null
  local missing=0 c
  for c in "${cmds[@]}"; do [[ -x "$BIN/$c" ]] || missing=1; done
  if [[ $missing == 0 && -f "$BIN/VERSION" && "$(cat "$BIN/VERSION")" == "$K8S_VERSION stamped" ]]; then
    log "binaries cached in $BIN ($K8S_VERSION): ${cmds[*]}"
    return
  fi
  command -v go >/dev/null || { log "go is required to build the control plane"; exit 1; }
  local src="$DIR/src"
  mkdir -p "$src" "$BIN"
  # k8s.io/kubernetes replaces its staging modules with ./staging paths, which `go install` refuses;
  # a wrapper module requires it and pins every staging module to the matching published version.
  local kmod
  kmod="$(cd "$src" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$K8S_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
  {
    echo "module infermeter.local/kubetestenv"
    echo
    echo "go 1.26"
    echo
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo
    echo "replace ("
    sed -n 's/^[[:space:]]*\(k8s\.io\/[^ ]*\) => \.\/staging\/.*/\1/p' "$kmod" |
      while read -r m; do echo "	$m => $m $STAGING_VERSION"; done
    echo ")"
  } >"$src/go.mod"
  {
    printf '//go:build tools\n\npackage kubetestenv\n\nimport (\n'
    for c in kube-apiserver kube-controller-manager kube-scheduler kubelet; do
      printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$c"
    done
    printf ')\n'
  } >"$src/tools.go"
  log "resolving modules for $K8S_VERSION"
  (cd "$src" && go mod tidy >/dev/null)
  log "building ${cmds[*]} (several minutes on first run)"
  local pkgs=()
  for c in "${cmds[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  # Stamped with the release's version (only the link step differs): without it every binary says
  # v0.0.0-master, which is what the API server's /version would then report.
  local minor="${K8S_VERSION#v1.}"
  minor="${minor%%.*}"
  local stamp="" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    stamp+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
  done
  (cd "$src" && CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags="-s$stamp" -o "$BIN/" "${pkgs[@]}")
  echo "$K8S_VERSION stamped" >"$BIN/VERSION"
  log "built into $BIN"
}

gen_pki() {
  [[ -f "$PKI/ca.crt" ]] && return
  mkdir -p "$PKI"
  local o="openssl"
  $o genrsa -out "$PKI/ca.key" 2048 2>/dev/null
  $o req -x509 -new -key "$PKI/ca.key" -subj "/CN=infermeter-testenv-ca" -days 30 -out "$PKI/ca.crt" 2>/dev/null
  $o genrsa -out "$PKI/apiserver.key" 2048 2>/dev/null
  $o req -new -key "$PKI/apiserver.key" -subj "/CN=kube-apiserver" -out "$PKI/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n' >"$PKI/apiserver.ext"
  $o x509 -req -in "$PKI/apiserver.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -days 30 \
    -extfile "$PKI/apiserver.ext" -out "$PKI/apiserver.crt" 2>/dev/null
  # Service-account tokens are signed with this key pair (the controller manager mints them).
  $o genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  $o rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  # Static bearer tokens: an admin for the tests and the runner, one for the controller manager.
  local admin cm
  admin="$($o rand -hex 24)"
  cm="$($o rand -hex 24)"
  printf '%s,testenv-admin,uid-admin,system:masters\n%s,system:kube-controller-manager,uid-kcm\n' "$admin" "$cm" \
    >"$PKI/tokens.csv"
  printf '%s' "$admin" >"$PKI/admin.token"
  printf '%s' "$cm" >"$PKI/kcm.token"
}

write_kubeconfig() { # $1 file, $2 token, $3 user
  cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority: $PKI/ca.crt
users:
- name: $3
  user:
    token: $2
contexts:
- name: testenv
  context:
    cluster: testenv
    user: $3
    namespace: default
current-context: testenv
KC
  chmod 600 "$1"
}

running() { [[ -f "$RUN/$1.pid" ]] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }

start() { # $1 name, rest: command
  local name="$1"
  shift
  if running "$name"; then return; fi
  setsid "$@" >"$RUN/$name.log" 2>&1 </dev/null &
  echo $! >"$RUN/$name.pid"
}

wait_ready() {
  local i
  for i in $(seq 1 120); do
    if curl -sf --cacert "$PKI/ca.crt" -H "Authorization: Bearer $(cat "$PKI/admin.token")" \
      "https://127.0.0.1:$API_PORT/readyz" >/dev/null 2>&1; then return 0; fi
    if ! running kube-apiserver; then
      log "kube-apiserver exited; tail of $RUN/kube-apiserver.log:"
      tail -20 "$RUN/kube-apiserver.log" >&2
      return 1
    fi
    sleep 0.5
  done
  log "kube-apiserver not ready after 60 s"
  return 1
}

up() {
  build
  mkdir -p "$RUN"
  gen_pki
  local etcd
  etcd="$(etcd_bin)"
  start etcd "$etcd" --name testenv --data-dir "$RUN/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "testenv=http://127.0.0.1:$ETCD_PEER_PORT" --log-level error
  start kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --client-ca-file "$PKI/ca.crt" \
    --token-auth-file "$PKI/tokens.csv" \
    --authorization-mode Node,RBAC \
    --service-account-issuer https://kubernetes.default.svc \
    --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
    --service-cluster-ip-range 10.0.0.0/24 \
    --enable-admission-plugins NamespaceLifecycle,ServiceAccount,OwnerReferencesPermissionEnforcement \
    --disable-admission-plugins DefaultStorageClass,PersistentVolumeClaimResize \
    --endpoint-reconciler-type none \
    --allow-privileged=false --profiling=false
  wait_ready
  write_kubeconfig "$RUN/admin.kubeconfig" "$(cat "$PKI/admin.token")" testenv-admin
  write_kubeconfig "$RUN/kcm.kubeconfig" "$(cat "$PKI/kcm.token")" system:kube-controller-manager
  start kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig "$RUN/kcm.kubeconfig" --authentication-kubeconfig "$RUN/kcm.kubeconfig" \
    --authorization-kubeconfig "$RUN/kcm.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 0 --leader-elect=false \
    --use-service-account-credentials=true \
    --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
    --controllers job-controller,serviceaccount-controller,serviceaccount-token-controller,namespace-controller,garbage-collector-controller,ttl-after-finished-controller,root-ca-certificate-publisher-controller \
    --profiling=false
  echo "$RUN/admin.kubeconfig"
}

down() {
  local n
  for n in kube-controller-manager kube-apiserver etcd; do
    if running "$n"; then
      kill "$(cat "$RUN/$n.pid")" 2>/dev/null || true
      for _ in $(seq 1 40); do running "$n" || break; sleep 0.25; done
    fi
    rm -f "$RUN/$n.pid"
  done
  rm -rf "$RUN/etcd-data"
}

status() {
  local n
  for n in etcd kube-apiserver kube-controller-manager; do
    if running "$n"; then echo "$n running"; else echo "$n stopped"; fi
  done
  if running kube-apiserver; then echo "kubeconfig $RUN/admin.kubeconfig"; fi
}


# ---- A real node (opt-in; see the top of this file and ../shared/reference/real-kubelet-node.md) ----

NODE_RUN="${KUBE_TESTENV_NODE_RUN:-$DIR/node-run}"
NODE_IP="${KUBE_TESTENV_NODE_IP:-10.231.0.1}"
NODE_NAME="infermeter-node"
NODE_IF="imnode0"
POD_BRIDGE="imcni0"
POD_CIDR="${KUBE_TESTENV_POD_CIDR:-10.231.1.0/24}"
SERVICE_IP="10.0.0.1"
CNI_NET="infermeter-testenv"
CNI_BIN="${KUBE_TESTENV_CNI_BIN:-/usr/lib/cni}"
NPKI="$NODE_RUN/pki"
CTD="$NODE_RUN/ctd"
CTD_SOCK="$CTD/containerd.sock"

node_packages() {
  local missing=()
  command -v containerd >/dev/null || missing+=(containerd)
  command -v runc >/dev/null || missing+=(runc)
  [[ -x "$CNI_BIN/bridge" ]] || missing+=(containernetworking-plugins)
  command -v iptables >/dev/null || missing+=(iptables)
  command -v ctr >/dev/null || missing+=(containerd)
  if ((${#missing[@]} > 0)); then
    log "installing ${missing[*]} (Debian packages)"
    apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null; }
  fi
}

# Version-3 certificates (Deno's TLS refuses version 1): $1 name, $2 subject, $3 extensions.
node_cert() {
  openssl genrsa -out "$NPKI/$1.key" 2048 2>/dev/null
  openssl req -new -key "$NPKI/$1.key" -subj "$2" -out "$NPKI/$1.csr" 2>/dev/null
  printf '%s\n' "$3" >"$NPKI/$1.ext"
  openssl x509 -req -in "$NPKI/$1.csr" -CA "$NPKI/ca.crt" -CAkey "$NPKI/ca.key" -CAcreateserial -days 30 \
    -extfile "$NPKI/$1.ext" -out "$NPKI/$1.crt" 2>/dev/null
}

node_pki() {
  [[ -f "$NPKI/ca.crt" ]] && return
  mkdir -p "$NPKI"
  openssl genrsa -out "$NPKI/ca.key" 2048 2>/dev/null
  openssl req -x509 -new -key "$NPKI/ca.key" -subj "/CN=infermeter-testenv-node-ca" -days 30 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$NPKI/ca.crt" 2>/dev/null
  node_cert apiserver "/CN=kube-apiserver" \
    "subjectAltName=IP:$NODE_IP,IP:$SERVICE_IP,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc
extendedKeyUsage=serverAuth"
  node_cert kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "extendedKeyUsage=clientAuth"
  openssl genrsa -out "$NPKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$NPKI/sa.key" -pubout -out "$NPKI/sa.pub" 2>/dev/null
  local admin kcm sched node
  admin="$(openssl rand -hex 24)" kcm="$(openssl rand -hex 24)" sched="$(openssl rand -hex 24)" node="$(openssl rand -hex 24)"
  {
    printf '%s,testenv-admin,uid-admin,system:masters\n' "$admin"
    printf '%s,system:kube-controller-manager,uid-kcm\n' "$kcm"
    printf '%s,system:kube-scheduler,uid-sched\n' "$sched"
    printf '%s,system:node:%s,uid-node,system:nodes\n' "$node" "$NODE_NAME"
  } >"$NPKI/tokens.csv"
  printf '%s' "$admin" >"$NPKI/admin.token"
  printf '%s' "$kcm" >"$NPKI/kcm.token"
  printf '%s' "$sched" >"$NPKI/sched.token"
  printf '%s' "$node" >"$NPKI/node.token"
}

node_kubeconfig() { # $1 file, $2 token file, $3 user
  cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
- name: testenv-node
  cluster:
    server: https://$NODE_IP:$API_PORT
    certificate-authority: $NPKI/ca.crt
users:
- name: $3
  user:
    token: $(cat "$2")
contexts:
- name: testenv-node
  context:
    cluster: testenv-node
    user: $3
    namespace: default
current-context: testenv-node
KC
  chmod 600 "$1"
}

nrunning() { [[ -f "$NODE_RUN/$1.pid" ]] && kill -0 "$(cat "$NODE_RUN/$1.pid")" 2>/dev/null; }

nstart() { # $1 name, rest: command
  local name="$1"
  shift
  if nrunning "$name"; then return; fi
  setsid "$@" >"$NODE_RUN/$name.log" 2>&1 </dev/null &
  echo $! >"$NODE_RUN/$name.pid"
}

nstop() { # $1 name, $2 seconds before SIGKILL
  nrunning "$1" || { rm -f "$NODE_RUN/$1.pid"; return 0; }
  local pid
  pid="$(cat "$NODE_RUN/$1.pid")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((${2:-15} * 4))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$NODE_RUN/$1.pid"
}

node_network() {
  # The node's address, on an interface of its own (a veth pair: kernels without the dummy driver have veth, which
  # the pod bridge needs anyway); nothing is attached to its other end.
  ip link show "$NODE_IF" >/dev/null 2>&1 || ip link add "$NODE_IF" type veth peer name "${NODE_IF}p"
  ip addr show dev "$NODE_IF" | grep -q "$NODE_IP/32" || ip addr add "$NODE_IP/32" dev "$NODE_IF"
  ip link set "$NODE_IF" up
  ip link set "${NODE_IF}p" up
  # The in-cluster service address (no kube-proxy here): to the API server, from this host and from the pods.
  iptables -t nat -C OUTPUT -d "$SERVICE_IP/32" -p tcp --dport 443 -j DNAT --to-destination "$NODE_IP:$API_PORT" \
    2>/dev/null || iptables -t nat -A OUTPUT -d "$SERVICE_IP/32" -p tcp --dport 443 -j DNAT --to-destination "$NODE_IP:$API_PORT"
  iptables -t nat -C PREROUTING -s "$POD_CIDR" -d "$SERVICE_IP/32" -p tcp --dport 443 -j DNAT \
    --to-destination "$NODE_IP:$API_PORT" 2>/dev/null ||
    iptables -t nat -A PREROUTING -s "$POD_CIDR" -d "$SERVICE_IP/32" -p tcp --dport 443 -j DNAT \
      --to-destination "$NODE_IP:$API_PORT"
  echo "$API_PORT" >"$NODE_RUN/dnat.port"
}

node_containerd() {
  mkdir -p "$CTD/cni" "$CTD/root" "$CTD/state"
  cat >"$CTD/cni/10-$CNI_NET.conflist" <<CNI
{"cniVersion": "0.4.0", "name": "$CNI_NET", "plugins": [
  {"type": "bridge", "bridge": "$POD_BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}
]}
CNI
  cat >"$CTD/config.toml" <<TOML
version = 2
root = "$CTD/root"
state = "$CTD/state"
[grpc]
  address = "$CTD_SOCK"
[ttrpc]
  address = "$CTD/containerd.sock.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "infermeter.local/pause:1"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CNI_BIN"
    conf_dir = "$CTD/cni"
TOML
  nstart containerd containerd --config "$CTD/config.toml"
  for _ in $(seq 1 40); do [[ -S "$CTD_SOCK" ]] && break; sleep 0.25; done
}

node_images() { # archives to import into the CRI's namespace
  local pause="$BIN/pause"
  if [[ ! -x "$pause" ]]; then
    (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags=-s -o "$pause" scripts/kube/pause.go)
  fi
  deno run -A "$ROOT/scripts/kube/pause_image.ts" "$pause" "$NODE_RUN/pause.oci.tar" >/dev/null
  local a
  for a in "$NODE_RUN/pause.oci.tar" "$@"; do
    ctr -a "$CTD_SOCK" -n k8s.io images import "$a" >/dev/null
    log "imported $(basename "$a")"
  done
}

node_up() {
  [[ "$(id -u)" == 0 ]] || { log "node-up needs root"; exit 1; }
  build kube-apiserver kube-controller-manager kube-scheduler kubelet
  node_packages
  mkdir -p "$NODE_RUN"
  # Whatever fails from here on (set -e), everything done so far is undone.
  NODE_UP_OK=0
  trap '[[ $NODE_UP_OK == 1 ]] || { log "node-up failed: tearing down"; node_down; }' EXIT
  node_pki
  node_network
  node_containerd
  node_images "$@"
  local etcd
  etcd="$(etcd_bin)"
  nstart etcd "$etcd" --name testenv-node --data-dir "$NODE_RUN/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "testenv-node=http://127.0.0.1:$ETCD_PEER_PORT" --log-level error
  nstart kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address "$NODE_IP" --advertise-address "$NODE_IP" --secure-port "$API_PORT" \
    --tls-cert-file "$NPKI/apiserver.crt" --tls-private-key-file "$NPKI/apiserver.key" \
    --client-ca-file "$NPKI/ca.crt" --token-auth-file "$NPKI/tokens.csv" \
    --kubelet-client-certificate "$NPKI/kubelet-client.crt" --kubelet-client-key "$NPKI/kubelet-client.key" \
    --kubelet-preferred-address-types InternalIP,Hostname \
    --authorization-mode Node,RBAC \
    --service-account-issuer https://kubernetes.default.svc \
    --service-account-key-file "$NPKI/sa.pub" --service-account-signing-key-file "$NPKI/sa.key" \
    --service-cluster-ip-range 10.0.0.0/24 \
    --enable-admission-plugins NamespaceLifecycle,ServiceAccount,OwnerReferencesPermissionEnforcement,NodeRestriction \
    --disable-admission-plugins DefaultStorageClass,PersistentVolumeClaimResize \
    --endpoint-reconciler-type none --allow-privileged=false --profiling=false
  local i
  for i in $(seq 1 120); do
    curl -sf --cacert "$NPKI/ca.crt" -H "Authorization: Bearer $(cat "$NPKI/admin.token")" \
      "https://$NODE_IP:$API_PORT/readyz" >/dev/null 2>&1 && break
    nrunning kube-apiserver || { tail -20 "$NODE_RUN/kube-apiserver.log" >&2; exit 1; }
    sleep 0.5
  done
  node_kubeconfig "$NODE_RUN/admin.kubeconfig" "$NPKI/admin.token" testenv-admin
  node_kubeconfig "$NODE_RUN/kcm.kubeconfig" "$NPKI/kcm.token" system:kube-controller-manager
  node_kubeconfig "$NODE_RUN/sched.kubeconfig" "$NPKI/sched.token" system:kube-scheduler
  node_kubeconfig "$NODE_RUN/node.kubeconfig" "$NPKI/node.token" "system:node:$NODE_NAME"
  nstart kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig "$NODE_RUN/kcm.kubeconfig" --authentication-kubeconfig "$NODE_RUN/kcm.kubeconfig" \
    --authorization-kubeconfig "$NODE_RUN/kcm.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 0 --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file "$NPKI/sa.key" --root-ca-file "$NPKI/ca.crt" \
    --controllers job-controller,serviceaccount-controller,serviceaccount-token-controller,namespace-controller,garbage-collector-controller,ttl-after-finished-controller,root-ca-certificate-publisher-controller,node-lifecycle-controller \
    --profiling=false
  nstart kube-scheduler "$BIN/kube-scheduler" --kubeconfig "$NODE_RUN/sched.kubeconfig" \
    --authentication-kubeconfig "$NODE_RUN/sched.kubeconfig" --authorization-kubeconfig "$NODE_RUN/sched.kubeconfig" \
    --leader-elect=false --secure-port 0 --profiling=false
  mkdir -p "$NODE_RUN/kubelet/pki" "$NODE_RUN/kubelet/pod-logs" "$NODE_RUN/kubelet/volume-plugins"
  cat >"$NODE_RUN/kubelet.yaml" <<KCFG
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failSwapOn: false
failCgroupV1: false
containerRuntimeEndpoint: unix://$CTD_SOCK
address: $NODE_IP
port: 20250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 20248
podLogsDir: $NODE_RUN/kubelet/pod-logs
volumePluginDir: $NODE_RUN/kubelet/volume-plugins
authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: $NPKI/ca.crt}}
authorization: {mode: Webhook}
rotateCertificates: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {"memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%"}
KCFG
  nstart kubelet "$BIN/kubelet" --config "$NODE_RUN/kubelet.yaml" --kubeconfig "$NODE_RUN/node.kubeconfig" \
    --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" --root-dir "$NODE_RUN/kubelet" \
    --cert-dir "$NODE_RUN/kubelet/pki"
  for i in $(seq 1 120); do
    local nodejson
    nodejson="$(curl -sf --cacert "$NPKI/ca.crt" -H "Authorization: Bearer $(cat "$NPKI/admin.token")" \
      "https://$NODE_IP:$API_PORT/api/v1/nodes/$NODE_NAME" 2>/dev/null | tr -d ' \n' || true)"
    [[ "$nodejson" == *'"type":"Ready","status":"True"'* ]] && break
    nrunning kubelet || { tail -20 "$NODE_RUN/kubelet.log" >&2; exit 1; }
    [[ $i == 120 ]] && { log "node not Ready after 60 s; tail of $NODE_RUN/kubelet.log:"; tail -20 "$NODE_RUN/kubelet.log" >&2; exit 1; }
    sleep 0.5
  done
  NODE_UP_OK=1
  log "node $NODE_NAME ready ($NODE_IP); pods on $POD_CIDR"
  echo "$NODE_RUN/admin.kubeconfig"
}

node_down() {
  set +e
  # Pods first, through the API while it runs, so the kubelet stops their containers and releases their networks.
  if nrunning kube-apiserver && nrunning kubelet; then
    local tok
    tok="$(cat "$NPKI/admin.token" 2>/dev/null)"
    curl -sf --cacert "$NPKI/ca.crt" -H "Authorization: Bearer $tok" -X DELETE \
      "https://$NODE_IP:$API_PORT/api/v1/pods?gracePeriodSeconds=0" >/dev/null 2>&1
    local pods
    for _ in $(seq 1 40); do
      pods="$(curl -sf --cacert "$NPKI/ca.crt" -H "Authorization: Bearer $tok" \
        "https://$NODE_IP:$API_PORT/api/v1/pods" 2>/dev/null | tr -d ' \n')"
      [[ "$pods" == *'"items":[]'* ]] && break
      sleep 0.25
    done
  fi
  local n
  for n in kubelet kube-scheduler kube-controller-manager kube-apiserver etcd; do nstop "$n" 15; done
  # Container shims of this containerd (by their socket path), then containerd.
  local pid
  for pid in $(grep -l -s -- "$CTD_SOCK" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3); do
    [[ "$pid" == "$(cat "$NODE_RUN/containerd.pid" 2>/dev/null)" ]] || kill -9 "$pid" 2>/dev/null
  done
  nstop containerd 10
  # Mounts the kubelet and containerd made under the state directory, deepest first.
  awk -v s="$NODE_RUN" '$2 ~ "^"s {print $2}' /proc/mounts | sort -r | while read -r m; do umount -l "$m"; done
  ip link del "$POD_BRIDGE" 2>/dev/null
  ip link del "$NODE_IF" 2>/dev/null
  local port
  port="$(cat "$NODE_RUN/dnat.port" 2>/dev/null)"
  if [[ -n "$port" ]]; then
    iptables -t nat -D OUTPUT -d "$SERVICE_IP/32" -p tcp --dport 443 -j DNAT --to-destination "$NODE_IP:$port" 2>/dev/null
    iptables -t nat -D PREROUTING -s "$POD_CIDR" -d "$SERVICE_IP/32" -p tcp --dport 443 -j DNAT \
      --to-destination "$NODE_IP:$port" 2>/dev/null
    rm -f "$NODE_RUN/dnat.port"
  fi
  # The bridge plugin's masquerade chains for this network (named after it), and its address leases.
  iptables -t nat -S POSTROUTING 2>/dev/null | grep -- "$CNI_NET" | sed 's/^-A/-D/' |
    while read -r rule; do eval iptables -t nat "$rule" 2>/dev/null; done
  rm -rf "/var/lib/cni/networks/$CNI_NET"
  # The pods' cgroups (cgroup v1 hierarchies and the unified one), deepest first.
  local root
  for root in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods /sys/fs/cgroup/unified/kubepods; do
    [[ -d "$root" ]] && find "$root" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  # containerd's fixed run directory: only what is left empty (another containerd's state is never touched).
  rmdir /run/containerd/runc/k8s.io /run/containerd/runc /run/containerd/s /run/containerd 2>/dev/null
  rm -rf "$NODE_RUN/etcd-data"
  log "node down"
  set -e
}

case "${1:-}" in
build) build ;;
build-node) build kube-apiserver kube-controller-manager kube-scheduler kubelet ;;
node-up)
  shift
  node_up "$@"
  ;;
node-down) node_down ;;
up) up ;;
down) down ;;
status) status ;;
*)
  echo "usage: $0 build|up|down|status|build-node|node-up [image.oci.tar …]|node-down" >&2
  exit 2
  ;;
esac
