// The one launcher of `mixforge serve` for the Node test drivers, as
// tests/support/daemon.cpp's launch_serve is for the C++ tests and tests/support/serve.sh for
// the shell ones: the daemon on an ephemeral loopback port (--port 0 --port-file), ready once
// it has written its port ("PORT\n", renamed into place).
//
//   const daemon = await launchServe(exe, serveArgs, { data, log, port, timeoutS });
//   daemon.url, daemon.port, daemon.data, daemon.log, daemon.child, daemon.exited
//   const { code, signal } = await daemon.stop({ graceMs });
//
// Spawns `exe serve --port PORT --port-file F --data DATA SERVE_ARGS...` with stdout and
// stderr appended to `log` (default: serve.log in the launcher's scratch folder; appended, so
// a restarted daemon's log follows the first one's) and waits up to timeoutS (default 60)
// until the port file holds the port. `data`: the store (default: a fresh one in the scratch
// folder, removed by stop()); `port`: default 0 (any free port; give the last one to restart
// a daemon where it was). Rejects with the end of the log when the daemon exits during startup
// (saying how) or stays silent (then it is killed). stop(): SIGTERM, SIGKILL after graceMs
// (default 20000), waits for the exit and removes the scratch folder. A daemon still running
// when the driver exits is SIGKILLed (also when the driver is killed: through setpriv
// --pdeathsig KILL where util-linux's setpriv is installed).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The port once the file holds it in full: the daemon writes "PORT\n" to a temporary file and
// renames it, so a file without its newline is not the daemon's.
function portIn(portFile) {
  let text;
  try {
    text = fs.readFileSync(portFile, 'utf8');
  } catch {
    return 0;
  }
  if (!text.endsWith('\n')) return 0;
  const port = Number.parseInt(text, 10);
  return port > 0 ? port : 0;
}

// The end of a file: its last `bytes` ("..." in front when cut); empty while it does not exist.
export function fileTail(file, bytes = 4000) {
  let s;
  try {
    s = fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  return s.length <= bytes ? s : '...' + s.slice(s.length - bytes);
}

// How a child ended: "exit code N" or "killed by signal NAME".
export function describeExit(code, signal) {
  return signal ? `killed by signal ${signal}` : `exit code ${code}`;
}

// setpriv (util-linux) execs the daemon with SIGKILL as its parent-death signal.
const SETPRIV = '/usr/bin/setpriv';
const DIE_WITH_PARENT = (() => {
  try {
    fs.accessSync(SETPRIV, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
})();

// Daemons still running: SIGKILLed when the driver exits.
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function launchServe(exe, serveArgs = [], { data, log, port = 0, timeoutS = 60 } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-serve-'));
  const store = data ?? path.join(dir, 'data');
  fs.mkdirSync(store, { recursive: true });
  const logFile = log ?? path.join(dir, 'serve.log');
  const portFile = path.join(dir, 'port');
  const out = fs.openSync(logFile, 'a');
  const args = ['serve', '--port', String(port), '--port-file', portFile, '--data', store, ...serveArgs];
  // Killed with the driver, as launch_serve's children are (PR_SET_PDEATHSIG): a CTest
  // timeout SIGKILLs only the driver, and no 'exit' handler runs then.
  const child = DIE_WITH_PARENT
    ? spawn(SETPRIV, ['--pdeathsig', 'KILL', '--', exe, ...args], { stdio: ['ignore', out, out] })
    : spawn(exe, args, { stdio: ['ignore', out, out] });
  fs.closeSync(out);
  running.add(child);
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });

  const deadline = Date.now() + timeoutS * 1000;
  let found = 0;
  let spawnError = null;
  child.once('error', (e) => (spawnError = e));
  while (Date.now() < deadline) {
    if (spawnError) {
      removeDir();
      throw new Error(`mixforge serve could not be started (${exe}): ${spawnError.message}`);
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = describeExit(child.exitCode, child.signalCode);
      const tail = fileTail(logFile);
      removeDir();
      throw new Error(`mixforge serve exited during startup (${how}): ${tail}`);
    }
    found = portIn(portFile);
    if (found) break;
    await sleep(20);
  }
  if (!found) {
    child.kill('SIGKILL');
    await exited;
    const tail = fileTail(logFile);
    removeDir();
    throw new Error(`mixforge serve did not report its port within ${timeoutS} s: ${tail}`);
  }

  let stopped = null;
  const stop = ({ graceMs = 20000 } = {}) => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
        const how = await exited;
        clearTimeout(t);
        removeDir();
        return how;
      }
      const how = await exited;
      removeDir();
      return how;
    })();
    return stopped;
  };
  return { url: `http://127.0.0.1:${found}`, port: found, data: store, log: logFile, child, exited, stop };
}
