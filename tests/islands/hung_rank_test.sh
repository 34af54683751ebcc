#!/usr/bin/env bash
# A rank that hangs (SIGSTOP: it neither dies nor answers) while an island run goes on:
# rank 0 marks its island lost after --rank-timeout, the run finishes and is stored with
# that island lost, the report is printed, and the job ends within the budget, the timeouts
# and a margin, with no process left. MPI_Finalize waits for every rank, so a rank 0 that
# finalized would wait forever for the stopped one: rank 0 ends the job with MPI_Abort once
# everything is stored and the healthy ranks have said goodbye, and mpirun exits with code 3
# (README, "A rank that hangs").
# Usage: hung_rank_test.sh MIXFORGE_BINARY. Exit 77 (skipped) without mpirun or MPI support.
set -euo pipefail
exe=$1
source "$(dirname "$0")/common.sh"
launcher="" victim=""
cleanup() {
  # Whatever happened: the stopped rank continues, and nothing of the job stays behind.
  [ -n "$victim" ] && kill -CONT "$victim" 2> /dev/null || true
  if [ -n "$launcher" ] && kill -0 "$launcher" 2> /dev/null; then
    for p in $(children_of "$launcher"); do kill -CONT "$p" 2> /dev/null || true; kill -KILL "$p" 2> /dev/null || true; done
    kill -KILL "$launcher" 2> /dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

budget=20 timeout_s=5
echo "== SIGSTOP of rank 2 in a ${budget}s run, --rank-timeout $timeout_s"
mpirun --oversubscribe -np 3 "$exe" evolve --islands --width 12 --max-steps 4 --seconds "$budget" --pool 200 \
  --threads 1 --migration-interval 200 --rank-timeout "$timeout_s" --island-checkpoint-interval 0.5 --device cpu \
  --data "$work/h" --json > "$work/h.out" 2> "$work/h.err" &
launcher=$!
run=""
for _ in $(seq 1 300); do
  victim=$(rank_pid "$launcher" 2)
  run=$(sed -n 's/^run_id: //p' "$work/h.out")
  [ -n "$victim" ] && [ -n "$run" ] && break
  sleep 0.1
done
[ -n "$victim" ] && [ -n "$run" ] || { cat "$work/h.err"; fail "rank 2 or the run id not found"; }
# Until rank 2's island has a stored checkpoint: it has evolved and reported.
for _ in $(seq 1 300); do
  show "$run" "$work/h" 2> /dev/null | python3 -c '
import json, sys
isl = json.load(sys.stdin).get("islands") or []
sys.exit(0 if len(isl) == 3 and isl[2]["checkpoint_tournaments"] > 0 else 1)' && break
  sleep 0.2
done
kill -STOP "$victim"
stopped=$(date +%s)
# The budget, the rank timeout at most three times over (lost, then the other ranks' last
# sends and their goodbyes at the end) and a margin for a loaded machine.
limit=$((budget + 3 * timeout_s + 60))
while kill -0 "$launcher" 2> /dev/null && [ $(($(date +%s) - stopped)) -lt "$limit" ]; do sleep 0.5; done
if kill -0 "$launcher" 2> /dev/null; then
  cat "$work/h.err"
  fail "mpirun still runs $limit s after rank 2 was stopped (a hang in MPI_Finalize?)"
fi
rc=0
wait "$launcher" || rc=$?
took=$(($(date +%s) - stopped))
launcher=""
cat "$work/h.err"
if [ "$rc" -eq 139 ] && grep -q "PMIx_server_finalize" "$work/h.err"; then
  # Open MPI 4.1.4's own bug, not ours: now and then mpirun crashes as it tears down after an
  # abort that killed a SIGSTOPped rank (a C program that stops a rank and aborts: 3 crashes
  # in 111 runs; with a rank that loops instead of stopping, none in 20). The job has ended
  # all the same.
  echo "note: mpirun crashed in PMIx_server_finalize after the abort (Open MPI 4.1's, README)"
elif [ "$rc" -ne 3 ]; then
  fail "mpirun exited $rc, not 3 (the run stored, a rank ended by MPI_Abort)"
fi
# Open MPI killed it: gone, or a zombie until its new parent reaps it.
state() { local f; read -r -a f < "/proc/$1/stat" 2> /dev/null && echo "${f[2]}" || echo gone; }
for _ in $(seq 1 20); do case $(state "$victim") in gone | Z) break ;; esac; sleep 0.5; done
case $(state "$victim") in gone | Z) ;; *) fail "the stopped rank $victim is still there ($(state "$victim"))" ;; esac
grep -q "island 2 .*not answered" "$work/h.err" || fail "rank 0 did not say which island it gave up on"
tail -n 1 "$work/h.out" > "$work/h.json"
show "$run" "$work/h" > "$work/h-show.json"
python3 - "$work/h.json" "$work/h-show.json" << 'PY'
import json, sys
out = json.load(open(sys.argv[1]))
stored = json.load(open(sys.argv[2]))
assert out["state"] == "finished" and stored["state"] == "finished", (out["state"], stored["state"])
for isl in (out["islands"], stored["islands"]):
    assert len(isl) == 3, isl
    assert isl[2]["lost"] and not isl[2]["finished"], ("island 2 is not marked lost", isl[2])
    assert isl[2]["checkpoint_tournaments"] > 0, ("island 2's last checkpoint is kept", isl[2])
    for i in isl[:2]:
        assert i["finished"] and not i["lost"], i
print("ok: run finished and stored; island 2 lost with its checkpoint at %d tournaments; islands 0 and 1 finished" %
      stored["islands"][2]["checkpoint_tournaments"])
PY
echo "ok: mpirun exited $rc ${took}s after rank 2 was stopped; no process left"
echo "PASS"
