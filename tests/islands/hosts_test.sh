#!/usr/bin/env bash
# Islands across machines, as closely as one machine can stand in for two: two hosts, each
# a network namespace with its own host name (a UTS namespace), joined by a veth pair. The
# second host runs an sshd of its own and has its own, private copy of the data folder (a
# tmpfs in its own mount namespace), so nothing it writes there is seen by the first. mpirun
# runs on the first host with a hostfile and starts the second host's ranks through ssh, as
# on real machines; the ranks talk over TCP between the hosts.
#   1. 3 ranks (2 on node1, 1 on node2), a 12-bit run: every island sends and receives
#      migrants; rank 0 stores each island's host; the bests of node2's island are in rank
#      0's store; node2's data folder stays empty (only rank 0 writes its --data).
#   2. the run resumes across the hosts: node2's island restarts from the checkpoint that
#      went to rank 0 over TCP, with its counts carried on, and the run migrates as it did
#      (its migration settings are kept with it; a resume that tries to change them is
#      refused, naming the flag).
#   3. node2 drops off the network mid-run (its link goes down: no process ends, no
#      connection is closed). With the settings README advises for runs across machines (TCP
#      keepalive for Open MPI's daemons, and time for rank 0 to stop cleanly when the job is
#      ended), mpirun notices the lost host and ends the job; rank 0 stops its run cleanly,
#      with node2's last checkpoint stored, and reports it. node2 comes back and the run
#      resumes with its island where that checkpoint left it.
# Usage: hosts_test.sh MIXFORGE_BINARY. Exit 77 (skipped, with the reason) without mpirun,
# sshd, ip or unshare, when not root, or where network namespaces cannot be made.
set -euo pipefail
exe=$(realpath "$1")
skip() { echo "SKIPPED: $*"; exit 77; }
command -v mpirun > /dev/null || skip "mpirun (openmpi-bin) not installed"
for tool in /usr/sbin/sshd ssh ssh-keygen ip unshare; do
  command -v "$tool" > /dev/null || skip "$tool not installed (openssh-server, openssh-client, iproute2, util-linux)"
done
[ "$(id -u)" = 0 ] || skip "network namespaces need root"

work=$(mktemp -d)
ns1=mfhosts1_$$ ns2=mfhosts2_$$
cleanup() {
  local ns
  for ns in "$ns1" "$ns2"; do
    ip netns pids "$ns" 2> /dev/null | xargs -r kill -9 2> /dev/null || true
    ip netns del "$ns" 2> /dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT  # ctest's timeout: the namespaces and their processes go too
fail() { echo "FAIL: $*"; exit 1; }

ip netns add "$ns1" 2> "$work/netns.err" || skip "cannot make a network namespace: $(cat "$work/netns.err")"
ip netns add "$ns2"
ip link add "mfa$$" type veth peer name "mfb$$" 2> "$work/veth.err" || skip "cannot make a veth pair: $(cat "$work/veth.err")"
ip link set "mfa$$" netns "$ns1"
ip link set "mfb$$" netns "$ns2"
ip -n "$ns1" addr add 10.77.0.1/24 dev "mfa$$"
ip -n "$ns2" addr add 10.77.0.2/24 dev "mfb$$"
for ns in "$ns1" "$ns2"; do ip -n "$ns" link set lo up; done
ip -n "$ns1" link set "mfa$$" up
ip -n "$ns2" link set "mfb$$" up
mkdir -p "$work/data"
# What node2 needs: its own host name and a private mount in its namespace.
ip netns exec "$ns2" unshare --uts --mount --propagation private sh -c \
  "hostname probe && mount -t tmpfs tmpfs '$work/data' && umount '$work/data'" 2> "$work/probe.err" \
  || skip "cannot give a network namespace its own host name and mounts: $(cat "$work/probe.err")"

# ssh from node1 to node2 as root with a key made here; nothing of the machine's own ssh set-up
# is read or changed (only /run/sshd, which sshd needs to exist, is made when missing).
ssh-keygen -q -t ed25519 -N '' -f "$work/id"
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
cp "$work/id.pub" "$work/authorized_keys"
mkdir -p /run/sshd
cat > "$work/sshd_config" << EOF
ListenAddress 10.77.0.2
HostKey $work/host_key
AuthorizedKeysFile $work/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
PidFile $work/sshd.pid
EOF
cat > "$work/ssh_config" << EOF
Host *
  IdentityFile $work/id
  IdentitiesOnly yes
  BatchMode yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  ConnectTimeout 10
EOF
# node2: its own host name, its own network, its own data folder (a tmpfs over the same path).
ip netns exec "$ns2" unshare --uts --mount --propagation private sh -c \
  "hostname node2 && mount -t tmpfs tmpfs '$work/data' && exec /usr/sbin/sshd -D -e -f '$work/sshd_config'" \
  2> "$work/sshd.log" &
disown $!  # the cleanup kills it: no job notice for that
on_node1() { ip netns exec "$ns1" unshare --uts sh -c 'hostname node1 && exec "$@"' sh "$@"; }
on_node2() { on_node1 ssh -F "$work/ssh_config" 10.77.0.2 "$@"; }
# Until ssh reaches node2 (its sshd starting; after its link comes back, the neighbour entry
# of node1 that failed while it was down).
reach_node2() {
  for _ in $(seq 1 300); do
    [ "$(on_node2 hostname 2> /dev/null)" = node2 ] && return 0
    sleep 0.1
  done
  cat "$work/sshd.log"
  fail "ssh to node2 does not work"
}
reach_node2

printf '10.77.0.1 slots=2\n10.77.0.2 slots=1\n' > "$work/hosts"
# Open MPI as on real machines: ranks started through ssh, TCP between hosts (and for its
# own wiring), shared memory between the ranks of one host. Not bound to cores: each host's
# daemon would bind its ranks as if it had the machine's cores to itself. mpi_options: more
# options for mpirun.
mpi_options=()
islands() {
  on_node1 timeout 300 mpirun --allow-run-as-root --hostfile "$work/hosts" -np 3 \
    --mca plm_rsh_agent ssh --mca plm_rsh_args "-F $work/ssh_config" \
    --mca btl self,vader,tcp --mca btl_vader_single_copy_mechanism none \
    --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 --bind-to none \
    "${mpi_options[@]}" "$exe" evolve --islands "$@"
}

echo "== 1. three islands on two hosts, 12 bits, 3000 tournaments each"
islands --width 12 --max-steps 4 --tournaments 3000 --pool 200 --threads 1 --migration-interval 200 \
  --migrants 3 --device cpu --data "$work/data" --json > "$work/a.out" 2> "$work/a.err" \
  || { cat "$work/a.err"; fail "the island run across hosts failed"; }
cat "$work/a.err"
tail -n 1 "$work/a.out" > "$work/a.json"
run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$work/a.json")
"$exe" runs export "$run" --json --data "$work/data" > "$work/export.json"
"$exe" runs show "$run" --json --data "$work/data" > "$work/show.json"
"$exe" runs show "$run" --data "$work/data" > "$work/show.txt"
if ! grep -q "^islands      3, migration every 200 tournaments, 3 migrants, ring" "$work/show.txt" ||
  ! grep -q "^2 *node2 *3000 " "$work/show.txt"; then
  cat "$work/show.txt"
  fail "runs show has no islands table"
fi
python3 - "$work/a.json" "$work/export.json" "$work/show.json" << 'PY'
import json, sys
out = json.load(open(sys.argv[1]))
export = json.load(open(sys.argv[2]))
stored = json.load(open(sys.argv[3])).get("islands")
islands = out["islands"]
assert [s["host"] for s in islands] == ["node1", "node1", "node2"], ("hosts", [s["host"] for s in islands])
assert stored and [s["host"] for s in stored] == ["node1", "node1", "node2"], ("stored hosts", stored)
for s in islands:
    assert s["finished"] and not s["lost"], s
    assert s["counters"]["tournaments"] >= 3000, s
    assert s["migrants_sent"] > 0 and s["migrants_received"] > 0, ("island %d did not migrate" % s["rank"], s)
# The ring 0 -> 1 -> 2 -> 0 crosses the hosts twice: node2's island receives from node1's
# rank 1 and sends to rank 0.
texts = {e["text"] for e in export["hall_of_fame"]}
assert islands[2]["bests_reported"] > 0, "node2's island reported no bests"
assert islands[2]["best"]["text"] in texts, "node2's best is not in rank 0's store"
print("ok: hosts %s; migrants sent %s, received %s, accepted %s; node2 reported %d bests" % (
    [s["host"] for s in islands], [s["migrants_sent"] for s in islands],
    [s["migrants_received"] for s in islands], [s["migrants_accepted"] for s in islands],
    islands[2]["bests_reported"]))
PY
left=$(on_node2 find "$work/data" -mindepth 1)
[ -z "$left" ] || fail "rank 2 wrote into node2's data folder: $left"
[ -n "$(ls -A "$work/data")" ] || fail "rank 0 wrote nothing into node1's data folder"
echo "ok: node2's data folder is empty; rank 0's holds $(cd "$work/data" && echo *)"

echo "== 2. the run resumes across the hosts"
before=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["islands"][2]["checkpoint_tournaments"])' \
  "$work/show.json")
[ "$before" -ge 3000 ] || fail "node2's checkpoint did not reach rank 0 (checkpoint_tournaments $before)"
rc=0
"$exe" evolve --islands --resume "$run" --migrants 5 --seconds 5 --data "$work/data" > "$work/refused.out" \
  2> "$work/refused.err" || rc=$?
if [ "$rc" != 2 ] || ! grep -q -- "--migrants: island run $run keeps the migration settings" "$work/refused.err"; then
  cat "$work/refused.err"
  fail "a resume with --migrants was not refused (exit code $rc)"
fi
echo "ok: refused: $(cat "$work/refused.err")"
islands --resume "$run" --seconds 5 --data "$work/data" --json > "$work/b.out" 2> "$work/b.err" \
  || { cat "$work/b.err"; fail "resuming the island run across hosts failed"; }
cat "$work/b.err"
grep -q "3 islands, migration every 200 tournaments, 3 migrants, ring, resumed" "$work/b.err" \
  || fail "the resumed run did not keep its migration settings"
tail -n 1 "$work/b.out" > "$work/b.json"
python3 - "$work/b.json" "$before" << 'PY'
import json, sys
out = json.load(open(sys.argv[1]))
before = int(sys.argv[2])
node2 = out["islands"][2]
assert node2["host"] == "node2" and node2["finished"] and not node2["lost"], node2
assert node2["counters"]["tournaments"] > before, ("node2's island did not carry on from %d" % before, node2)
print("ok: node2's island carried on from %d to %d tournaments" % (before, node2["counters"]["tournaments"]))
PY
left=$(on_node2 find "$work/data" -mindepth 1)
[ -z "$left" ] || fail "rank 2 wrote into node2's data folder on resume: $left"

echo "== 3. node2 drops off the network mid-run, comes back, and the run resumes"
mpi_options=(--mca oob_tcp_keepalive_time 5 --mca oob_tcp_keepalive_intvl 2 --mca oob_tcp_keepalive_probes 3
  --mca odls_base_sigkill_timeout 10)
islands --width 16 --max-steps 4 --seconds 240 --pool 200 --threads 1 --migration-interval 200 --rank-timeout 5 \
  --island-checkpoint-interval 1 --device cpu --data "$work/data2" --json \
  > "$work/c.out" 2> "$work/c.err" &
job=$!
# Until rank 0 has stored a checkpoint of node2's island.
stored_checkpoint() {
  "$exe" runs list --json --data "$work/data2" 2> /dev/null | python3 -c '
import json, sys
runs = [r for r in json.load(sys.stdin) if len(r.get("islands", [])) == 3]
print(runs[0]["islands"][2]["checkpoint_tournaments"] if runs else 0)' 2> /dev/null || echo 0
}
for _ in $(seq 1 120); do
  [ "$(stored_checkpoint)" -gt 0 ] && break
  kill -0 "$job" 2> /dev/null || { cat "$work/c.err"; fail "the run ended before node2's checkpoint was stored"; }
  sleep 0.5
done
[ "$(stored_checkpoint)" -gt 0 ] || fail "no checkpoint of node2's island reached rank 0 in a minute"
ip -n "$ns2" link set "mfb$$" down
dropped=$SECONDS
for _ in $(seq 1 240); do kill -0 "$job" 2> /dev/null || break; sleep 0.5; done
kill -0 "$job" 2> /dev/null && fail "mpirun still runs two minutes after node2 dropped off the network"
rc=0
wait "$job" || rc=$?
echo "mpirun ended $((SECONDS - dropped)) s after node2 dropped off (exit code $rc)"
cat "$work/c.err"
grep -q "lost communication with a remote daemon" "$work/c.err" || fail "Open MPI did not say it lost node2"
tail -n 1 "$work/c.out" > "$work/c.json"
[ -s "$work/c.json" ] || fail "rank 0 printed no result"
run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$work/c.json")
"$exe" runs show "$run" --json --data "$work/data2" > "$work/c_show.json"
before=$(python3 - "$work/c.json" "$work/c_show.json" << 'PY'
import json, sys
out = json.load(open(sys.argv[1]))
stored = json.load(open(sys.argv[2]))
assert out["state"] == "stopped" and stored["state"] == "stopped", (out["state"], stored["state"])
node2 = stored["islands"][2]
assert node2["host"] == "node2" and not node2["finished"], node2
assert node2["checkpoint_tournaments"] > 0, node2
print(node2["checkpoint_tournaments"])
PY
)
# node2 comes back. Whatever of the job still runs there (a machine that lost its network
# keeps its processes until its own daemon notices) ends before the run resumes.
ip -n "$ns2" link set "mfb$$" up
for pid in $(ip netns pids "$ns2"); do
  [ "$(cat "/proc/$pid/comm" 2> /dev/null)" = sshd ] || kill -9 "$pid" 2> /dev/null || true
done
reach_node2
islands --resume "$run" --seconds 5 --data "$work/data2" --json > "$work/d.out" 2> "$work/d.err" \
  || { cat "$work/d.err"; fail "resuming after node2 came back failed"; }
cat "$work/d.err"
tail -n 1 "$work/d.out" > "$work/d.json"
python3 - "$work/d.json" "$before" << 'PY'
import json, sys
out = json.load(open(sys.argv[1]))
before = int(sys.argv[2])
assert out["state"] == "finished", out["state"]
node2 = out["islands"][2]
assert node2["host"] == "node2" and node2["finished"] and not node2["lost"], node2
assert node2["counters"]["tournaments"] > before, ("node2's island did not carry on from %d" % before, node2)
print("ok: the run resumed; node2's island carried on from its checkpoint at %d to %d tournaments" % (
    before, node2["counters"]["tournaments"]))
PY
echo "PASS"
