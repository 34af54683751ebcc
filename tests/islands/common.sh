# Shared by the islands tests (sourced): Open MPI's settings for one machine, a scratch
# folder, and finding the ranks of a job from /proc. Expects $exe (the mixforge binary);
# exits 77 (skipped) without mpirun or with a mixforge built without MPI.
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
# The pid of MPI rank $2 of the job mpirun $1 runs (empty until it has started).
rank_pid() {
  local p
  for p in $(children_of "$1"); do
    if tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then echo "$p"; return; fi
  done
}
show() { "$exe" runs show "$1" --json --data "$2"; }

# One island without mpirun (an MPI singleton), or the message of a build without MPI.
probe=$(timeout 120 "$exe" evolve --islands --width 4 --max-steps 2 --tournaments 20 --pool 8 --threads 1 \
  --device cpu --data "$work/probe" 2>&1 || true)
if grep -q "built without" <<< "$probe"; then echo "SKIPPED: $probe"; exit 77; fi
