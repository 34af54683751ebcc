// Seed programs (run config `seed_programs`, issue 52): the new-run form's text box holds
// one program per block (blank lines between programs, since a program's own statements may
// take one line each), and a function page's Polish button starts a run from its function.
import type { RunConfig } from '../api/client';

// The programs of the text box: blocks separated by blank lines, trimmed, empty ones dropped.
export function parseSeedPrograms(text: string): string[] {
  return text
    .split(/\n[ \t]*\r?\n/)
    .map((b) => b.trim())
    .filter((b) => b !== '');
}

export interface PolishSource {
  id: string;
  short: string;
  text: string;
  width: number;
  steps: number;
}

// The run a function page's Polish button posts: the function as the one seed program,
// at its width and length, one worker (the climb takes the worker steps and the machine's
// cores for each exact score), a small pool, and an hour at most (a 32-bit climb takes
// minutes per move; the run is stopped like any other).
export function polishRunBody(f: PolishSource, seconds = 3600): RunConfig {
  return {
    name: `polish ${f.short}`,
    width: f.width,
    max_steps: f.steps,
    seed_programs: [f.text],
    pool_size: 64,
    threads: 1,
    budget: { seconds },
  } as RunConfig;
}

// One climb of a run's progress (progress.climbs[i]) as the run page shows it.
export interface ClimbView {
  centre?: { short: string; chi2_exact: number } | null;
  moves: number;
  scored: number;
  phase: 'singles' | 'pairs';
  position: number;
  neighbourhood: number;
  done: boolean;
}

export function climbText(c: ClimbView): string {
  if (!c.centre) return 'scoring the seed exactly…';
  const at = `${c.centre.short} (exact chi2 ${c.centre.chi2_exact.toExponential(4)})`;
  const counts = `${c.moves} ${c.moves === 1 ? 'move' : 'moves'}, ${c.scored} exact scores`;
  if (c.done) return `local optimum ${at}; ${counts}`;
  const where = c.phase === 'pairs' ? 'pairs of moves' : 'single moves';
  return `${where} ${c.position}/${c.neighbourhood} around ${at}; ${counts}`;
}
