#!/usr/bin/env bash
# End-to-end test of the images of docker/ with podman (CTest label `container`, not in the
# default presets: `ctest --preset container`). It installs nothing: it needs root, podman,
# runc, debootstrap (only while the base image is missing), curl and python3, and exits 77
# (skipped) saying what is missing. Install them with
#   apt-get install --no-install-recommends podman runc debootstrap
# Steps: the base image localhost/bookworm:base (debootstrap, kept across runs:
# docker/make-base-image); the daemon image (docker/Dockerfile; its first build compiles
# mixforge in the container: about 10 minutes on 2 cores); a container of it on a free port
# with a fresh volume: /healthz until healthy, the image's HEALTHCHECK, the uid of the
# process, the token in the volume, an authenticated API request and one without the token,
# the runs list, the dashboard; SIGTERM (exit status, seconds); a second start on the same
# volume (same token, same runs); then the CUDA image (docker/Dockerfile.cuda) started the
# same way (no GPU here: it must start and answer /healthz). Containers and volumes are
# removed at the end, the images kept (the next run's build is then a cache hit).
#
# Podman on these machines: runc, not crun (crun fails on setrlimit and on the hybrid
# cgroups here), no default ulimits (a containers.conf given by CONTAINERS_CONF), host
# networking for builds and containers; the build's npm requests trust this machine's CA
# bundle (mounted into the build).
#
# usage: run_container_test.sh [--results FILE] [--no-cuda]
#   --results FILE   also write the measured figures to FILE (env MIXFORGE_CONTAINER_RESULTS)
#   --no-cuda        leave the CUDA image out
# env: MIXFORGE_CONTAINER_BASE (default localhost/bookworm:base: made here when missing;
#      another name must exist), MIXFORGE_CONTAINER_HEALTHY_TIMEOUT (s, default 90)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
results=${MIXFORGE_CONTAINER_RESULTS:-}
cuda=yes
while (($#)); do
  case $1 in
    --results) results=${2:?--results needs a file}; shift 2 ;;
    --no-cuda) cuda=no; shift ;;
    *) echo "usage: $0 [--results FILE] [--no-cuda]" >&2; exit 2 ;;
  esac
done
base=${MIXFORGE_CONTAINER_BASE:-localhost/bookworm:base}
healthy_timeout=${MIXFORGE_CONTAINER_HEALTHY_TIMEOUT:-90}
image=localhost/mixforge:latest
cuda_image=localhost/mixforge:cuda
uid=10001

log() { echo "container-test: $*"; }
fail() { echo "container-test: FAILED: $*" >&2; exit 1; }
skip() { echo "container-test: skipped: $*"; exit 77; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# What is needed; nothing is installed here.
if [ "$(id -u)" != 0 ]; then
  skip "needs root (rootful podman with runc; debootstrap for the base image)"
fi
missing=()
for tool in podman runc curl python3; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ "$base" = localhost/bookworm:base ] && ! command -v debootstrap >/dev/null; then
  command -v podman >/dev/null && podman image exists "$base" || missing+=(debootstrap)
fi
if ((${#missing[@]})); then
  skip "missing ${missing[*]} (apt-get install --no-install-recommends podman runc debootstrap curl python3)"
fi

load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
# The tree the images are built from, read before anything is written: a --results file
# inside the repository would otherwise count as an uncommitted change.
commit_at_start="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')"
work=$(mktemp -d "${TMPDIR:-/tmp}/mixforge-container-test.XXXXXX")
containers=() volumes=()
cleanup() {
  local c v
  for c in "${containers[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1 || true; done
  for v in "${volumes[@]}"; do podman volume rm -f "$v" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
printf '[containers]\ndefault_ulimits = []\n' >"$work/containers.conf"
export CONTAINERS_CONF="$work/containers.conf"
run_flags=(--runtime runc --network host)
# The build's npm requests trust what this machine trusts (its CA bundle, mounted into the
# build: networks that intercept TLS; docker/Dockerfile, ARG NODE_EXTRA_CA_CERTS).
build_flags=("${run_flags[@]}" --format docker)
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  build_flags+=(-v /etc/ssl/certs/ca-certificates.crt:/mnt/build-ca.pem:ro
                --build-arg NODE_EXTRA_CA_CERTS=/mnt/build-ca.pem)
fi

# A TCP port nothing listens on (a connection to it is refused).
free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}
json_check() {  # json_check FILE PYTHON-EXPRESSION-ON-d DESCRIPTION
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" || fail "$3: $(head -c 400 "$1")"
}
image_mb() { podman image inspect --format '{{.Size}}' "$1" | awk '{ printf "%.0f", $1 / 1e6 }'; }

# --- base image -------------------------------------------------------------------------
base_made=no base_s=""
if ! podman image exists "$base"; then
  [ "$base" = localhost/bookworm:base ] || fail "base image $base does not exist"
  t0=$(now)
  "$root/docker/make-base-image" "$base"
  base_s=$(since "$t0") base_made=yes
  log "base image $base made in ${base_s} s"
else
  log "base image $base exists (kept across runs)"
fi

# --- daemon image -----------------------------------------------------------------------
log "building $image (docker/Dockerfile; a first build compiles mixforge: about 10 minutes on 2 cores)"
t0=$(now)
if ! nice -n 19 podman build "${build_flags[@]}" --build-arg BASE="$base" \
    -f "$root/docker/Dockerfile" -t "$image" "$root" >"$work/build.log" 2>&1; then
  tail -40 "$work/build.log" >&2
  fail "podman build of docker/Dockerfile"
fi
build_s=$(since "$t0")
compiled=no
if grep -q 'Linking CXX executable cli/mixforge' "$work/build.log"; then
  # ccache's count in the build's cache mount: "Hits: 0 / 31" on a first build.
  compiled="yes, ccache hits $(awk '$1 == "Hits:" { print $2 "/" $4; exit }' "$work/build.log")"
fi
log "built $image in ${build_s} s (mixforge compiled in this build: $compiled)"

[ "$(podman image inspect --format '{{.Config.User}}' "$image")" = "$uid:$uid" ] ||
  fail "image user is not $uid:$uid"
healthcheck=$(podman image inspect --format '{{json .HealthCheck}}' "$image")
grep -q healthz <<<"$healthcheck" || fail "image has no HEALTHCHECK on /healthz: $healthcheck"
if podman run --rm "${run_flags[@]}" --entrypoint ldd "$image" /usr/local/bin/mixforge >"$work/ldd.txt" 2>&1 &&
   ! grep -q 'not found' "$work/ldd.txt"; then
  log "every library of /usr/local/bin/mixforge is in the image"
else
  cat "$work/ldd.txt" >&2
  fail "libraries missing in the image"
fi

# start_daemon NAME IMAGE VOLUME PORT: starts it, waits for /healthz; sets healthy_s.
start_daemon() {
  local name=$1 img=$2 vol=$3 port=$4 t0
  t0=$(now)
  # podman schedules the image's HEALTHCHECK with a systemd timer; without systemd (these
  # machines) it says so on stderr and the container runs: the test runs the check itself.
  podman run -d "${run_flags[@]}" --name "$name" -e MIXFORGE_PORT="$port" \
    -v "$vol:/data" "$img" >/dev/null 2>"$work/run.err" || { cat "$work/run.err" >&2; fail "podman run $img"; }
  containers+=("$name")
  until curl -fsS --max-time 2 -o "$work/healthz.json" "http://127.0.0.1:$port/healthz" 2>/dev/null; do
    if [ "$(podman inspect --format '{{.State.Running}}' "$name")" != true ]; then
      podman logs "$name" 2>&1 | tail -20 >&2
      fail "$name exited before answering /healthz"
    fi
    if awk -v a="$(since "$t0")" -v b="$healthy_timeout" 'BEGIN { exit !(a > b) }'; then
      podman logs "$name" 2>&1 | tail -20 >&2
      fail "$name: no answer from /healthz within $healthy_timeout s"
    fi
    sleep 0.1
  done
  healthy_s=$(since "$t0")
  json_check "$work/healthz.json" 'd["status"] == "ok"' "/healthz of $name"
}
# stop_daemon NAME: SIGTERM (podman stop; SIGKILL after 30 s), checks exit status 0 within
# 15 s; sets stop_s.
stop_daemon() {
  local name=$1 t0 code
  t0=$(now)
  podman stop --time 30 "$name" >/dev/null 2>"$work/stop.err" || { cat "$work/stop.err" >&2; fail "podman stop $name"; }
  stop_s=$(since "$t0")
  code=$(podman inspect --format '{{.State.ExitCode}}' "$name")
  if [ "$code" != 0 ] || awk -v a="$stop_s" 'BEGIN { exit !(a > 15) }'; then
    podman logs "$name" 2>&1 | tail -20 >&2
    fail "$name: SIGTERM: exit status $code after $stop_s s (wanted 0 within 15 s)"
  fi
}

# --- the daemon -------------------------------------------------------------------------
port=$(free_port) || fail "no free port"
vol=mixforge-test-data-$$
podman volume create "$vol" >/dev/null
volumes+=("$vol")
name=mixforge-test-$$
log "starting $image on port $port with volume $vol"
start_daemon "$name" "$image" "$vol" "$port"
first_healthy_s=$healthy_s
log "healthy after $healthy_s s: $(cat "$work/healthz.json")"

podman healthcheck run "$name" >"$work/hc.txt" 2>&1 || { cat "$work/hc.txt" >&2; fail "the image's HEALTHCHECK failed"; }
health=$(podman inspect --format '{{.State.Health.Status}}' "$name")
[ "$health" = healthy ] || fail "health status after the image's HEALTHCHECK: $health"
log "the image's HEALTHCHECK (curl in the container, podman healthcheck run): $health"

pid=$(podman inspect --format '{{.State.Pid}}' "$name")
[ "$(cat "/proc/$pid/comm")" = mixforge ] || fail "process 1 of the container is $(cat "/proc/$pid/comm"), not mixforge"
read -r _ ruid euid suid fsuid < <(grep '^Uid:' "/proc/$pid/status")
[ "$ruid $euid $suid $fsuid" = "$uid $uid $uid $uid" ] || fail "mixforge runs as uid $ruid/$euid, not $uid"
[ "$(podman exec "$name" id -u)" = "$uid" ] || fail "podman exec: uid is not $uid"
log "process 1 is mixforge, uid $uid (host /proc and podman exec)"

mountpoint=$(podman volume inspect --format '{{.Mountpoint}}' "$vol")
[ -f "$mountpoint/token" ] || fail "no token file in the volume"
[ "$(stat -c '%u %a' "$mountpoint/token")" = "$uid 600" ] ||
  fail "token file: owner/mode $(stat -c '%u %a' "$mountpoint/token"), wanted $uid 600"
token=$(tr -d '\n' <"$mountpoint/token")
log "token file /data/token in the volume: owner $uid, mode 600"

api=http://127.0.0.1:$port/api/v1
body='{"program": "x ^= x >> 8; x *= 0x2c1b; x ^= x >> 7;", "width": 16}'
code=$(curl -sS -o "$work/unauth.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -d "$body" "$api/evaluate")
[ "$code" = 401 ] || fail "POST /api/v1/evaluate without the token: HTTP $code, wanted 401"
code=$(curl -sS -o "$work/eval.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -H "Authorization: Bearer $token" -d "$body" "$api/evaluate")
[ "$code" = 200 ] || fail "POST /api/v1/evaluate with the token: HTTP $code: $(head -c 400 "$work/eval.json")"
json_check "$work/eval.json" 'd["program"]["width"] == 16 and d["program"]["steps"] == 3 and d["score"]["chi2"] >= 0' \
  "POST /api/v1/evaluate answer"
log "POST /api/v1/evaluate: 401 without the token, 200 with it: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["score"]; print("chi2 %.4g, bias %.4g, %s over %d inputs" % (s["chi2"], s["bias"], "exact" if s["exact"] else "sampled", s["samples"]))' "$work/eval.json")"
curl -fsS -o "$work/runs.json" "$api/runs" || fail "GET /api/v1/runs"
json_check "$work/runs.json" 'd["total"] == len(d["items"]) >= 1' "GET /api/v1/runs (the default run)"
runs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"])' "$work/runs.json")
log "GET /api/v1/runs: $runs run(s) (the default run of a first start)"
curl -fsS -o "$work/index.html" "http://127.0.0.1:$port/" || fail "GET / (dashboard)"
grep -qi '<!doctype html' "$work/index.html" || fail "GET / is not the dashboard's HTML"
log "GET /: the dashboard"

stop_daemon "$name"
first_stop_s=$stop_s
log "SIGTERM: exit status 0 after $stop_s s; last log lines:"
podman logs "$name" 2>&1 | tail -3 | sed 's/^/    /'
podman rm "$name" >/dev/null 2>&1

# Second start on the same volume: the token and the runs are the volume's.
name2=mixforge-test-$$-again
start_daemon "$name2" "$image" "$vol" "$port"
second_healthy_s=$healthy_s
[ "$(tr -d '\n' <"$mountpoint/token")" = "$token" ] || fail "the token changed on the second start"
curl -fsS -o "$work/runs2.json" "$api/runs" || fail "GET /api/v1/runs (second start)"
json_check "$work/runs2.json" "d['total'] == $runs" "GET /api/v1/runs after a restart"
stop_daemon "$name2"
log "second start on the same volume: healthy after $healthy_s s, same token, $runs run(s); SIGTERM: exit 0 after $stop_s s"
podman rm "$name2" >/dev/null 2>&1

# --- the CUDA image ---------------------------------------------------------------------
cuda_build_s="" cuda_healthy_s="" cuda_device=""
if [ $cuda = yes ]; then
  log "building $cuda_image (docker/Dockerfile.cuda, FROM $image)"
  t0=$(now)
  if ! nice -n 19 podman build "${run_flags[@]}" --format docker --build-arg DAEMON_IMAGE="$image" \
      -f "$root/docker/Dockerfile.cuda" -t "$cuda_image" "$root" >"$work/build-cuda.log" 2>&1; then
    tail -40 "$work/build-cuda.log" >&2
    fail "podman build of docker/Dockerfile.cuda"
  fi
  cuda_build_s=$(since "$t0")
  vol=mixforge-test-cuda-$$
  podman volume create "$vol" >/dev/null
  volumes+=("$vol")
  name=mixforge-test-cuda-$$
  start_daemon "$name" "$cuda_image" "$vol" "$port"
  cuda_healthy_s=$healthy_s
  pid=$(podman inspect --format '{{.State.Pid}}' "$name")
  # (Read whole, then matched: grep -q ending a pipe early would fail it under pipefail.)
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline")
  podman logs "$name" >"$work/cuda.log" 2>&1
  if [[ $cmdline == *"--device auto"* ]]; then
    cuda_device="serve --device auto"
  elif grep -q 'has no --device option' "$work/cuda.log"; then
    cuda_device="no --device option in this mixforge: started without it (entrypoint's warning)"
  else
    fail "the CUDA image started neither with --device auto nor with the entrypoint's warning"
  fi
  log "CUDA image (no GPU here): healthy after $healthy_s s: $(cat "$work/healthz.json"); $cuda_device"
  stop_daemon "$name"
  log "CUDA image: SIGTERM: exit 0 after $stop_s s"
fi

# --- figures ----------------------------------------------------------------------------
base_mb=$(image_mb "$base") image_mb_=$(image_mb "$image")
cuda_mb=""
# Where the daemon image's size goes: its largest Debian packages (installed size).
largest=$(podman run --rm "${run_flags[@]}" --entrypoint dpkg-query "$image" -W -f '${Installed-Size} ${Package}\n' 2>/dev/null |
  sort -rn | awk 'NR <= 6 { printf "%s%s %.0f MB", (NR > 1 ? ", " : ""), $2, $1 / 1024 }')
[ $cuda = yes ] && cuda_mb=$(image_mb "$cuda_image")
summary() {
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $commit_at_start"
  echo "machine: $(nproc) cores (load average at the start: $load_at_start; at the end: $(cut -d' ' -f1-3 /proc/loadavg)); $(podman --version); $(runc --version | sed -n 1p)"
  echo "base_image: $base, ${base_mb} MB$([ $base_made = yes ] && echo ", made in ${base_s} s")"
  echo "daemon_image: $image, ${image_mb_} MB; largest packages: $largest"
  echo "daemon_build_s: $build_s (mixforge compiled in this build: $compiled)"
  echo "daemon_start_to_healthy_s: $first_healthy_s (first start, empty volume); $second_healthy_s (second start)"
  echo "daemon_sigterm_exit_s: $first_stop_s (exit status 0)"
  if [ $cuda = yes ]; then
    echo "cuda_image: $cuda_image, ${cuda_mb} MB (layers shared with the daemon image)"
    echo "cuda_build_s: $cuda_build_s"
    echo "cuda_start_to_healthy_s: $cuda_healthy_s (no GPU on this machine; $cuda_device)"
  fi
}
log "PASSED"
summary | sed 's/^/  /'
if [ -n "$results" ]; then
  mkdir -p "$(dirname "$results")"
  {
    echo "# tests/container/run_container_test.sh --results: one run on this machine"
    summary
  } >"$results"
  log "figures written to $results"
fi
