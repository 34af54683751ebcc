#!/usr/bin/env bash
# The best of an island run is the best over all its islands at every moment, not rank 0's
# own until a migrant brings a better one (issue 41: 4.81 was reported while another
# island held 2.69). 3 ranks, 16 bits and 5 steps (at 12 bits every island soon finds the
# same optimum), no migration within the run (an interval far beyond its tournaments), rank
# 0 at the lowest priority so that the other islands get ahead of it (before the fix: the
# run said 0.197 at its end, island 2 held 0.00784).
# While the run goes on, every stored summary (`runs show`, read by another process) has a
# best no worse than any island's best in it; at the end the run's best, the first entry of
# its hall of fame and the last point of its history are the best of the three islands.
# Usage: best_test.sh MIXFORGE_BINARY. Exit 77 (skipped) without mpirun or MPI support.
set -euo pipefail
exe=$1
source "$(dirname "$0")/common.sh"

echo "== an island run whose best lies on another island than rank 0's"
args=(evolve --islands --width 16 --max-steps 5 --seconds 20 --pool 200 --threads 1 --migration-interval 100000000
  --device cpu --data "$work/a" --json)
timeout 300 mpirun --oversubscribe -np 1 nice -n 19 "$exe" "${args[@]}" : -np 2 "$exe" "${args[@]}" \
  > "$work/a.out" 2> "$work/a.err" &
launcher=$!
run=""
for _ in $(seq 1 300); do
  run=$(sed -n 's/^run_id: //p' "$work/a.out")
  [ -n "$run" ] && break
  sleep 0.1
done
[ -n "$run" ] || { cat "$work/a.err"; fail "no run id from the island run"; }
# Stored summaries while the run goes on, one a poll.
: > "$work/polls.jsonl"
while kill -0 "$launcher" 2> /dev/null; do
  if show "$run" "$work/a" > "$work/poll.json" 2> /dev/null; then
    python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$work/poll.json" \
      >> "$work/polls.jsonl" || true
  fi
  sleep 0.3
done
rc=0
wait "$launcher" || rc=$?
[ "$rc" -eq 0 ] || { cat "$work/a.err"; fail "mpirun exited $rc"; }
cat "$work/a.err"
tail -n 1 "$work/a.out" > "$work/a.json"
"$exe" runs export "$run" --json --data "$work/a" > "$work/export.json"
show "$run" "$work/a" > "$work/final.json"
python3 - "$work/polls.jsonl" "$work/a.json" "$work/final.json" "$work/export.json" << 'PY'
import json, sys
def rank(f):  # exact scores at 16 bits: the run ranks by exact chi2
    assert f["exact"], f
    return f["chi2"]
polls = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ahead = 0  # polls where an island other than rank 0's held a better best than rank 0's
checked = 0
for p in polls:
    isl = [i for i in (p.get("islands") or []) if i.get("best")]
    if not isl:
        continue
    checked += 1
    best = min(rank(i["best"]) for i in isl)
    assert p["best"] is not None, ("islands have bests but the run has none", p["islands"])
    assert rank(p["best"]) <= best, (
        "the stored run's best %.6g is worse than island %d's %.6g (tournaments %d)" % (
            rank(p["best"]), min(isl, key=lambda i: rank(i["best"]))["rank"], best, p["counters"]["tournaments"]))
    zero = [i for i in isl if i["rank"] == 0]
    if zero and best < rank(zero[0]["best"]):
        ahead += 1
assert checked >= 5, ("too few stored summaries with island bests while the run went on", checked, len(polls))
out = json.load(open(sys.argv[2]))
final = json.load(open(sys.argv[3]))
export = json.load(open(sys.argv[4]))
assert out["state"] == "finished", out["state"]
islands = final["islands"]
assert len(islands) == 3 and all(i["finished"] and not i["lost"] and i["best"] for i in islands), islands
best = min(islands, key=lambda i: rank(i["best"]))
for what, f in (("runs show", final["best"]), ("evolve --json", out["best"])):
    assert rank(f) == rank(best["best"]), ("%s says %.6g; island %d's best is %.6g" % (
        what, rank(f), best["rank"], rank(best["best"])))
hof = export["hall_of_fame"]
assert hof and hof[0]["chi2"] == rank(best["best"]), ("hall of fame", hof[:1], best["best"])
history = export["history"]
assert history and history[-1]["best_chi2"] == rank(best["best"]), ("history", history[-3:], best["best"])
print("ok: %d summaries while the run went on, none behind an island (another island led rank 0's in %d); "
      "at the end the run's best %.6g is island %d's, with rank 0's own at %.6g" % (
          checked, ahead, rank(final["best"]), best["rank"], rank(islands[0]["best"])))
if ahead == 0:
    print("note: rank 0's island led throughout this time, so the case of the issue did not arise")
PY
echo "PASS"
