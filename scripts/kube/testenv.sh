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
  if [[ $missing == 0 && -f "$BIN/VERSION" && "$(cat "$BIN/VERSION")" == "$K8S_VERSION" ]]; then
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
  (cd "$src" && CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags=-s -o "$BIN/" "${pkgs[@]}")
  echo "$K8S_VERSION" >"$BIN/VERSION"
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

case "${1:-}" in
build) build ;;
build-node) build kube-apiserver kube-controller-manager kube-scheduler kubelet ;;
up) up ;;
down) down ;;
status) status ;;
*)
  echo "usage: $0 build|up|down|status" >&2
  exit 2
  ;;
esac
