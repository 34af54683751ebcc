# shellcheck shell=bash disable=SC2034  # serve_* are set for the driver that sources this
# The one launcher of `mixforge serve` for the shell test drivers (sourced), as
# tests/support/daemon.cpp's launch_serve is for the C++ tests and tests/support/serve.mjs
# for the Node ones: the daemon on an ephemeral loopback port (--port 0 --port-file), ready
# once it has written its port ("PORT\n", renamed into place), killed and its scratch folder
# removed when the driver exits, however it exits.
#
#   source tests/support/serve.sh
#   serve_start [--data DIR] [--out FILE] [--err FILE] [--port N] [--timeout S] [--] COMMAND...
#       Runs COMMAND (what starts the daemon, ending with `serve` and its arguments:
#       `"$exe" serve --no-default-run`, or `mpirun -np 3 "$exe" serve --islands ...`) in the
#       background with `--port N --port-file F --data DIR` appended, and waits up to S seconds
#       (default 60) until the daemon has written its port. --data: the store (default: a fresh
#       one in the launcher's scratch folder, removed with it); --out/--err: where its stdout
#       and stderr go (default: both to $serve_log in the scratch folder); --port: default 0
#       (any free port; give the last one to restart a daemon where it was).
#       Sets serve_pid (COMMAND's pid), serve_port, serve_url (http://127.0.0.1:PORT),
#       serve_data, serve_dir (the scratch folder) and serve_log (its stderr). Returns 1, having
#       said why and shown the end of the log, when the daemon exits during startup or stays
#       silent (then it is killed). Call it directly, not in $(...) (its pid would not be ours).
#   serve_stop [--grace S] [PID]
#       SIGTERM to PID (default: $serve_pid), SIGKILL to it and its descendants after S seconds
#       (default 20); sets serve_status to its exit status (128 + signal for a signal). Always
#       returns 0: the caller asserts on serve_status.
#
# The first serve_start chains serve_cleanup in front of the EXIT trap already set (so the
# driver's own cleanup still runs after it), and makes SIGTERM and SIGINT exit (143) when the
# driver has no trap for them, so that a CTest timeout runs the cleanup too. serve_cleanup
# stops every daemon started here that still runs (SIGTERM, then SIGKILL after 10 s) and
# removes the scratch folders. Where util-linux's setpriv is installed, COMMAND also gets
# SIGKILL when the driver dies without its traps running (SIGKILL: a CTest timeout).

serve_pids=()
serve_dirs=()
serve_pid="" serve_port="" serve_url="" serve_data="" serve_dir="" serve_log="" serve_status=""
__serve_trapped=""

# Descendants of a pid, deepest first, from /proc (no procps needed).
__serve_descendants() {
  local stat child
  local -a f
  for stat in /proc/[0-9]*/stat; do
    # comm (field 2) may hold spaces: split what follows its closing parenthesis.
    read -r -a f <<< "$(sed 's/^.*) //' "$stat" 2> /dev/null)" || continue
    if [ "${f[1]:-}" = "$1" ]; then
      child=${stat#/proc/}
      child=${child%/stat}
      __serve_descendants "$child"
      echo "$child"
    fi
  done
  return 0
}

# True while pid $1 is a running (not yet reaped) child of this shell.
__serve_is_ours() {
  local -a f
  read -r -a f <<< "$(sed 's/^.*) //' "/proc/$1/stat" 2> /dev/null)" || return 1
  [ "${f[1]:-}" = "$$" ] && [ "${f[0]:-}" != Z ]
}

# The port once the file holds it in full ("PORT\n"), else nothing.
__serve_port_in() {
  local text
  [ -f "$1" ] || return 0
  text=$(cat "$1" 2> /dev/null; echo .)  # the dot keeps the trailing newline
  text=${text%.}
  case $text in
    *$'\n') ;;
    *) return 0 ;;
  esac
  text=${text%$'\n'}
  [[ $text =~ ^[0-9]+$ ]] && [ "$text" -gt 0 ] && echo "$text"
  return 0
}

# SIGKILL to pid $1 and its descendants.
__serve_kill() {
  local p
  for p in $(__serve_descendants "$1"); do kill -KILL "$p" 2> /dev/null || true; done
  kill -KILL "$1" 2> /dev/null || true
}

serve_stop() {
  local grace=20 pid deadline
  if [ "${1:-}" = --grace ]; then grace=$2; shift 2; fi
  pid=${1:-$serve_pid}
  serve_status=""
  [ -n "$pid" ] || return 0
  if __serve_is_ours "$pid"; then
    kill -TERM "$pid" 2> /dev/null || true
    deadline=$((SECONDS + grace))
    while __serve_is_ours "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
    if __serve_is_ours "$pid"; then
      echo "serve_stop: pid $pid still runs ${grace} s after SIGTERM: SIGKILL" >&2
      __serve_kill "$pid"
    fi
  fi
  serve_status=0
  wait "$pid" 2> /dev/null || serve_status=$?
  return 0
}

serve_cleanup() {
  local pid dir
  for pid in "${serve_pids[@]}"; do
    __serve_is_ours "$pid" && serve_stop --grace 10 "$pid"
  done
  for dir in "${serve_dirs[@]}"; do rm -rf "$dir"; done
  return 0
}

__serve_install_trap() {
  local prev
  local -a words=()
  [ -z "$__serve_trapped" ] || return 0
  __serve_trapped=1
  prev=$(trap -p EXIT)
  if [ -n "$prev" ]; then
    eval "words=($prev)"  # trap -- 'COMMAND' EXIT
    prev=${words[2]}
  fi
  # shellcheck disable=SC2064  # the driver's command, as it stands now
  trap "serve_cleanup; ${prev:-:}" EXIT
  [ -n "$(trap -p TERM)" ] || trap 'exit 143' TERM
  [ -n "$(trap -p INT)" ] || trap 'exit 130' INT
}

serve_start() {
  local data="" out="" err="" port=0 timeout=60 dir port_file deadline code
  while [ $# -gt 0 ]; do
    case $1 in
      --data) data=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      --err) err=$2; shift 2 ;;
      --port) port=$2; shift 2 ;;
      --timeout) timeout=$2; shift 2 ;;
      --) shift; break ;;
      *) break ;;
    esac
  done
  [ $# -gt 0 ] || { echo "serve_start: no command (e.g. \"\$exe\" serve)" >&2; return 1; }
  __serve_install_trap
  dir=$(mktemp -d "${TMPDIR:-/tmp}/mf-serve-XXXXXX") || return 1
  serve_dirs+=("$dir")
  if [ -z "$data" ]; then data=$dir/data; mkdir -p "$data"; fi
  [ -n "$err" ] || err=$dir/serve.log
  [ -n "$out" ] || out=$err
  port_file=$dir/port
  # Killed with the driver, as launch_serve's children are (PR_SET_PDEATHSIG): a CTest
  # timeout SIGKILLs only the driver, and no trap runs then. setpriv (util-linux) execs COMMAND.
  local -a die_with_parent=()
  [ -x /usr/bin/setpriv ] && die_with_parent=(/usr/bin/setpriv --pdeathsig KILL --)
  if [ "$out" = "$err" ]; then
    "${die_with_parent[@]}" "$@" --port "$port" --port-file "$port_file" --data "$data" >> "$err" 2>&1 &
  else
    "${die_with_parent[@]}" "$@" --port "$port" --port-file "$port_file" --data "$data" > "$out" 2> "$err" &
  fi
  serve_pid=$!
  serve_pids+=("$serve_pid")
  serve_dir=$dir serve_data=$data serve_log=$err serve_port="" serve_url=""
  deadline=$((SECONDS + timeout))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if ! __serve_is_ours "$serve_pid"; then
      code=0
      wait "$serve_pid" 2> /dev/null || code=$?
      if [ "$code" -gt 128 ]; then code="killed by signal $((code - 128)) ($(kill -l $((code - 128))))"; else code="exit code $code"; fi
      echo "serve_start: mixforge serve exited during startup ($code): $(tail -c 4000 "$err")" >&2
      return 1
    fi
    serve_port=$(__serve_port_in "$port_file")
    if [ -n "$serve_port" ]; then
      serve_url=http://127.0.0.1:$serve_port
      return 0
    fi
    sleep 0.02
  done
  echo "serve_start: mixforge serve did not report its port within $timeout s: $(tail -c 4000 "$err")" >&2
  __serve_kill "$serve_pid"
  wait "$serve_pid" 2> /dev/null || true
  return 1
}
