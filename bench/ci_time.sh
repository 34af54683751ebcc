#!/usr/bin/env bash
# Times CI on a fresh clone of the current commit, with no shared data folder beside it, and writes
# the figures README quotes: .ci/install-deps and the `test` workflow (exactly .ci/run), and
# with PRESETS="test asan tsan" the sanitizer workflows too.
# usage: bench/ci_time.sh [RESULTS_DIR]   (default bench/results/ci; writes ci_time.txt)
# Environment: CCACHE_DISABLE=1 for a cold build (what a fresh CI machine sees); without
# it the machine's ccache is used and the file says so. The machine's load average is
# recorded before and after: on a shared machine the wall times include the other jobs.
# Also reported: user+sys CPU seconds of each workflow (every compiler and test process);
# on an idle 2-core machine the wall time is at least about half of that.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/bench/results/ci}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work="$repo/build/ci-clone"
rm -rf "$work"
mkdir -p "$work"
git clone -q "$repo" "$work/mixforge"
cd "$work/mixforge"
git checkout -q "$(git -C "$repo" rev-parse HEAD)"
[ ! -e "$work/shared" ] || { echo "ci_time: $work/shared exists; the clone must stand alone" >&2; exit 2; }

report="$out/ci_time.txt"
{
  echo "commit $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, fresh clone in $work/mixforge (no shared data folder beside it)"
  # Asked of ccache itself: it counts CCACHE_DISABLE as set whatever its value, empty included.
  if ccache --show-config 2>/dev/null | grep -q '^(environment) disable = true'; then
    echo "ccache: disabled (cold build)"
  else
    echo "ccache: enabled (objects other checkouts compiled are reused)"
  fi
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$report.tmp"

.ci/install-deps
total_wall=0
total_cpu=0
# The workflows, timed one by one (.ci/run runs `test`).
for preset in ${PRESETS:-test}; do
  log="$work/$preset.log"
  status=0
  /usr/bin/time -f "%e %U %S" -o "$work/$preset.time" cmake --workflow --preset "$preset" > "$log" 2>&1 || status=$?
  read -r wall user sys < <(tail -1 "$work/$preset.time")
  cpu=$(echo "$user + $sys" | bc)
  total_wall=$(echo "$total_wall + $wall" | bc)
  total_cpu=$(echo "$total_cpu + $cpu" | bc)
  summary=$(grep -E "tests passed|tests failed" "$log" | tail -1 || true)
  echo "workflow $preset: wall ${wall} s, cpu ${cpu} s, exit ${status}; ${summary}" >> "$report.tmp"
  echo "ci_time: $preset: wall $wall s (exit $status)"
  if [ "$status" != 0 ]; then tail -40 "$log" >&2; fi
done
{
  echo "total: wall ${total_wall} s ($(echo "scale=1; $total_wall / 60" | bc) min), cpu ${total_cpu} s (idle 2-core estimate >= $(echo "scale=1; $total_cpu / 120" | bc) min)"
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} >> "$report.tmp"
mv "$report.tmp" "$report"
cat "$report"
