#!/usr/bin/env bash
# Islands on Open MPI, for real: 3 ranks oversubscribed on this machine.
#   1. a 12-bit run: every island sends and receives migrants, some are accepted, the other
#      islands' bests land in rank 0's store (runs export), and every island finishes;
#   2. SIGKILL of rank 2 mid-run: Open MPI 4.1 aborts the job, rank 0 gets SIGTERM and
#      stops its run cleanly (state "stopped", checkpoint written), and that run resumes.
# Usage: islands_test.sh MIXFORGE_BINARY. Exit 77 (skipped) without mpirun or MPI support.
set -euo pipefail
exe=$1
command -v mpirun > /dev/null || { echo "SKIPPED: mpirun (openmpi-bin) not installed"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # CI containers run as root
# Keep Open MPI off the network interfaces of CI machines: one node, shared memory.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Child processes of a pid, from /proc (no procps needed).
children_of() {
  local stat
  for stat in /proc/[0-9]*/stat; do
    read -r -a f < "$stat" 2> /dev/null || continue
    [ "${f[3]:-}" = "$1" ] && echo "${f[0]}"
  done
  return 0
}

# One island without mpirun (an MPI singleton), or the message of a build without MPI.
probe=$(timeout 120 "$exe" evolve --islands --width 4 --max-steps 2 --tournaments 20 --pool 8 --threads 1 \
  --device cpu --data "$work/probe" 2>&1 || true)
if grep -q "built without" <<< "$probe"; then echo "SKIPPED: $probe"; exit 77; fi

echo "== 1. three islands, 12 bits, 3000 tournaments each"
timeout 300 mpirun --oversubscribe -np 3 "$exe" evolve --islands --width 12 --max-steps 4 --tournaments 3000 \
  --pool 200 --threads 1 --migration-interval 200 --migrants 3 --device cpu --data "$work/a" --json \
  > "$work/a.out" 2> "$work/a.err" || { cat "$work/a.err"; fail "mpirun exited $?"; }
cat "$work/a.err"
tail -n 1 "$work/a.out" > "$work/a.json"
run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$work/a.json")
"$exe" runs export "$run" --json --data "$work/a" > "$work/export.json"
"$exe" runs show "$run" --json --data "$work/a" > "$work/show.json"
python3 - "$work/a.json" "$work/export.json" "$work/show.json" << 'PY'
import json, sys
out = json.load(open(sys.argv[1]))
export = json.load(open(sys.argv[2]))
stored = json.load(open(sys.argv[3])).get("islands")
assert stored and len(stored) == 3, ("the store has no islands for the run", stored)
for s, o in zip(stored, out["islands"]):
    assert s["rank"] == o["rank"] and s["finished"], s
    assert s["migrants_received"] == o["migrants_received"], (s, o)
    assert s["counters"]["tournaments"] == o["counters"]["tournaments"], (s, o)
islands = out["islands"]
assert len(islands) == 3, islands
for s in islands:
    assert s["finished"] and not s["lost"], s
    assert s["counters"]["tournaments"] > 0, s
    assert s["migrants_sent"] > 0, ("island %d sent nothing" % s["rank"], s)
    assert s["migrants_received"] > 0, ("island %d received nothing" % s["rank"], s)
assert sum(s["migrants_accepted"] for s in islands) > 0, "no migrant was ever accepted"
reported = sum(s["bests_reported"] for s in islands[1:])
assert reported > 0, "islands 1 and 2 reported no bests"
hof = export["hall_of_fame"]
assert len(hof) >= reported, ("rank 0's store has %d hall-of-fame entries, the islands reported %d" % (len(hof), reported))
texts = {e["text"] for e in hof}
for s in islands[1:]:
    if s["best"]:
        assert s["best"]["text"] in texts, ("island %d's best is not in rank 0's store" % s["rank"])
assert out["state"] == "finished", out["state"]
print("ok: migrants sent %s, received %s, accepted %s; %d bests from islands 1-2 in rank 0's store (%d entries)" % (
    [s["migrants_sent"] for s in islands], [s["migrants_received"] for s in islands],
    [s["migrants_accepted"] for s in islands], reported, len(hof)))
PY

echo "== 2. SIGKILL of rank 2"
mpirun --oversubscribe -np 3 "$exe" evolve --islands --width 12 --max-steps 4 --seconds 120 --pool 200 --threads 1 \
  --migration-interval 200 --device cpu --data "$work/b" > "$work/b.out" 2> "$work/b.err" &
launcher=$!
victim=""
for _ in $(seq 1 200); do
  for p in $(children_of "$launcher"); do
    if tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -qx OMPI_COMM_WORLD_RANK=2; then victim=$p; fi
  done
  # Wait until the run is stored and has progressed (the run id is printed first).
  if [ -n "$victim" ] && grep -q run_id "$work/b.out" && sleep 3; then break; fi
  sleep 0.1
done
[ -n "$victim" ] || fail "rank 2 not found"
kill -9 "$victim"
start=$(date +%s)
set +e
wait "$launcher"
rc=$?
set -e
took=$(( $(date +%s) - start ))
[ "$rc" -ne 0 ] || fail "mpirun exited 0 although a rank was killed"
[ "$took" -lt 60 ] || fail "the job took ${took}s to end after the kill"
run=$(sed -n 's/^run_id: //p' "$work/b.out")
state=$("$exe" runs show "$run" --json --data "$work/b" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
[ "$state" = stopped ] || fail "rank 0's run is $state after the kill, not stopped"
echo "ok: mpirun exited $rc ${took}s after the kill; rank 0's run $run is stopped"
"$exe" runs resume "$run" --tournaments 200 --json --data "$work/b" > "$work/resume.out" 2>&1 \
  || { cat "$work/resume.out"; fail "the stopped island run does not resume"; }
echo "ok: the run resumes (rank 0's island)"
