import type { IslandStatus, RunConfig } from '../api/client';
import { int, sci } from './format';

export const ISLAND_COLUMNS = [
  'island',
  'host',
  'tournaments',
  'sent',
  'received',
  'accepted',
  'bests reported',
  'best chi2',
  'checkpoint',
  'state',
];
// The columns of numbers (right-aligned): tournaments .. checkpoint.
export const ISLAND_NUMBER_COLUMNS = new Set([2, 3, 4, 5, 6, 7, 8]);

// The run's own migration settings (kept with an island run), in words.
export function migrationText(migration: RunConfig['migration']): string {
  if (!migration) return 'Migration as the flags of the command running it say (settings not stored with this run).';
  const to = migration.topology === 'random' ? 'a random other island' : 'the next island';
  return `Every ${int(migration.interval)} tournaments an island sends its best ${int(migration.migrants)} to ${to}.`;
}

// The cells of the run page's islands table (evolve --islands under mpirun), one row per
// island in rank order: its machine, what rank 0 last heard of each, and the tournament count of its
// last stored checkpoint (where a resume restarts it).
export function islandRows(islands: IslandStatus[] | null | undefined): string[][] {
  if (!islands?.length) return [];
  return [...islands]
    .sort((a, b) => a.rank - b.rank)
    .map((s) => [
      s.rank === 0 ? '0 (stored run)' : String(s.rank),
      s.host || '–',
      int(s.counters.tournaments),
      int(s.migrants_sent),
      int(s.migrants_received),
      int(s.migrants_accepted),
      int(s.bests_reported),
      s.best ? (s.best.chi2_exact != null ? sci(s.best.chi2_exact) : `~${sci(s.best.chi2)}`) : '–',
      s.checkpoint_tournaments ? int(s.checkpoint_tournaments) : '–',
      s.lost ? 'lost' : s.finished ? 'finished' : 'running',
    ]);
}
