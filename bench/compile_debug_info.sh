#!/usr/bin/env bash
# What full debug info (-g) costs to compile against line tables only (-g1): the heaviest
# compile units of a configured build (from its compile_commands.json and ninja's log),
# each compiled once with -g and once with -g1, one compile at a time, objects to /tmp;
# the two objects' instructions (objdump -d) are compared, since -g must not change code.
# Usage: bench/compile_debug_info.sh [BUILD_DIR] [UNITS]   (default build/release 4)
# Writes bench/results/ci/debug_info.md (OUT= to change the folder).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
units=${2:-4}
out=${OUT:-bench/results/ci}
mkdir -p "$out"
if [ ! -f "$build/compile_commands.json" ] || [ ! -f "$build/.ninja_log" ]; then
  echo "compile_debug_info: $build needs compile_commands.json and .ninja_log (configure and build it first)" >&2
  exit 2
fi
python3 - "$build" "$units" "$out/debug_info.md" << 'PY'
import json, os, re, shlex, subprocess, sys, tempfile, time, resource
build, units, report = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# ninja's log: the last duration of each output; the module units (not tests/ or bench/).
took = {}
for line in open(os.path.join(build, ".ninja_log")):
    if line.startswith("#"):
        continue
    start, end, _, target, _ = line.rstrip("\n").split("\t")
    took[target] = int(end) - int(start)
commands = {}
for e in json.load(open(os.path.join(build, "compile_commands.json"))):
    args = shlex.split(e["command"])
    target = os.path.relpath(os.path.join(e["directory"], args[args.index("-o") + 1]), build)
    if not target.startswith(("tests/", "bench/")):
        commands[target] = (e["directory"], [a for a in args if not re.fullmatch(r"-g[0-3]?", a)])
heaviest = sorted((t for t in commands if t in took), key=lambda t: -took[t])[:units]
load_before = open("/proc/loadavg").read().split()[:3]
objs = {g: tempfile.NamedTemporaryFile(suffix=g + ".o", delete=False).name for g in ("-g", "-g1")}

# CPU seconds and object size of one compile; `args` carries no debug-level flag.
def compile_with(directory, args, g):
    args = [args[0], g] + args[1:]
    args[args.index("-o") + 1] = objs[g]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, cwd=directory, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, os.path.getsize(objs[g])

def instructions(obj):  # without the header line, which names the file
    return subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], check=True, capture_output=True,
                          text=True).stdout.split("\n", 3)[3]

rows, total = [], {"-g": 0.0, "-g1": 0.0}
for t in heaviest:
    res = {}
    for g in ("-g", "-g1"):
        res[g] = compile_with(*commands[t], g)
        total[g] += res[g][0]
        print(f"{t} {g}: {res[g][0]:.1f} CPU-s, {res[g][1] / 1e6:.1f} MB", flush=True)
    same = instructions(objs["-g"]) == instructions(objs["-g1"])
    rows.append((t, res, same))
for obj in objs.values():
    os.unlink(obj)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
commit = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True).stdout.strip()
with open(report, "w") as f:
    f.write(f"# Compile time of full debug info (-g) against line tables (-g1)\n\n")
    f.write(f"{time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, commit {commit}, {os.cpu_count()} cores: {cpu}; "
            f"load average before: {' '.join(load_before)}.\n")
    f.write(f"Command: `bench/compile_debug_info.sh {build} {units}`. The {units} module units that took longest in "
            f"ninja's last build of `{build}`, each compiled alone with its own command, once with -g and once "
            f"with -g1 (CPU seconds of the compiler, user + system; object size; whether `objdump -d` lists the same "
            f"instructions for both objects).\n\n")
    f.write("| unit | -g CPU-s | -g1 CPU-s | -g1 / -g | -g object MB | -g1 object MB | same instructions |\n"
            "|---|---|---|---|---|---|---|\n")
    for t, res, same in rows:
        f.write(f"| `{t}` | {res['-g'][0]:.1f} | {res['-g1'][0]:.1f} | {res['-g1'][0] / res['-g'][0]:.2f} | "
                f"{res['-g'][1] / 1e6:.1f} | {res['-g1'][1] / 1e6:.1f} | {'yes' if same else '**no**'} |\n")
    f.write(f"| **all** | {total['-g']:.1f} | {total['-g1']:.1f} | **{total['-g1'] / total['-g']:.2f}** | | | |\n\n")
    f.write(f"Load average after: {' '.join(open('/proc/loadavg').read().split()[:3])}.\n")
print(f"wrote {report}")
PY
