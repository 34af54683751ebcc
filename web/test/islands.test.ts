import { describe, expect, it } from 'vitest';
import { islandRows, migrationText, ISLAND_COLUMNS, ISLAND_NUMBER_COLUMNS } from '../src/lib/islands';
import type { IslandStatus } from '../src/api/client';

const counters = (tournaments: number) => ({
  tournaments,
  removals: 0,
  scored: 0,
  early_rejects: 0,
  samples: 0,
  samples_saved: 0,
  exact_scored: 0,
  local_neighbours: 0,
  local_improvements: 0,
  restarts: 0,
  elapsed_s: 1,
});

function island(rank: number, extra: Partial<IslandStatus> = {}): IslandStatus {
  return {
    rank,
    host: `node${rank}`,
    counters: counters(1000 * (rank + 1)),
    best: null,
    migrants_sent: 8,
    migrants_received: 4,
    migrants_accepted: 1,
    bests_reported: 2,
    finished: false,
    lost: false,
    checkpoint_tournaments: 0,
    ...extra,
  } as IslandStatus;
}

describe('islandRows', () => {
  it('is empty for an ordinary run', () => {
    expect(islandRows(undefined)).toEqual([]);
    expect(islandRows([])).toEqual([]);
  });
  it('orders islands by rank and says which is the stored run and which are lost or finished', () => {
    const rows = islandRows([island(2, { lost: true }), island(0, { finished: true }), island(1)]);
    expect(rows.map((r) => r[0])).toEqual(['0 (stored run)', '1', '2']);
    expect(rows.map((r) => r[9])).toEqual(['finished', 'running', 'lost']);
    expect(rows[1].slice(1, 7)).toEqual(['node1', '2,000', '8', '4', '1', '2']);
    expect(rows[0].length).toBe(ISLAND_COLUMNS.length);
  });
  it('shows where a resume restarts each island: its last checkpoint', () => {
    const rows = islandRows([island(0, { checkpoint_tournaments: 12345 }), island(1)]);
    expect(rows.map((r) => r[8])).toEqual(['12,345', '–']);
  });
  it('shows the exact chi2 of an island best, else the sampled estimate', () => {
    const exact = { chi2: 2e-5, chi2_exact: 1.5e-5 } as IslandStatus['best'];
    const sampled = { chi2: 3e-5, chi2_exact: null } as IslandStatus['best'];
    const rows = islandRows([island(0, { best: exact }), island(1, { best: sampled }), island(2)]);
    expect(rows.map((r) => r[7])).toEqual(['1.5000e-5', '~3.0000e-5', '–']);
  });
  it('marks as numbers exactly the columns that hold numbers', () => {
    const exact = { chi2: 2e-5, chi2_exact: 1.5e-5 } as IslandStatus['best'];
    const row = islandRows([island(0, { best: exact, checkpoint_tournaments: 5 })])[0];
    row.forEach((cell, i) => {
      const numeric = /^~?[0-9][0-9,.]*(e-?[0-9]+)?$/.test(cell);
      expect(numeric).toBe(ISLAND_NUMBER_COLUMNS.has(i));
    });
    expect([...ISLAND_NUMBER_COLUMNS].map((i) => ISLAND_COLUMNS[i])).toEqual([
      'tournaments',
      'sent',
      'received',
      'accepted',
      'bests reported',
      'best chi2',
      'checkpoint',
    ]);
  });
  it('says how the run migrates, or that it stored no settings', () => {
    expect(migrationText({ interval: 200, migrants: 3, topology: 'ring' })).toBe(
      'Every 200 tournaments an island sends its best 3 to the next island.',
    );
    expect(migrationText({ interval: 2000, migrants: 4, topology: 'random' })).toBe(
      'Every 2,000 tournaments an island sends its best 4 to a random other island.',
    );
    expect(migrationText(undefined)).toMatch(/not stored/);
  });
});
