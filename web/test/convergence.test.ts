import { describe, expect, it } from 'vitest';
import { convergenceSets, logLogSlope, parseSppList, type BakeForConvergence } from '../src/lib/convergence';

const bake = (
  id: string,
  t: number,
  sampler: string,
  spp: number,
  rmse: number | null,
  reference: string | null,
  state = 'done',
): BakeForConvergence => ({ id, state, created_at: t, report: { sampler, spp, rmse, reference } });

describe('convergence sets', () => {
  it('groups by reference, newest set first, newer bake wins for the same point', () => {
    const sets = convergenceSets([
      bake('a', 1, 'pcg', 16, 0.4, 'r1'),
      bake('b', 2, 'pcg', 64, 0.2, 'r1'),
      bake('c', 3, 'pcg', 16, 0.3, 'r1'),
      bake('d', 4, 'mixforge-cmj', 16, 0.1, 'r2'),
      bake('e', 5, 'pcg', 4, 0.9, null),
      bake('f', 6, 'pcg', 4, null, 'r2'),
      bake('g', 7, 'pcg', 4, 0.5, 'r2', 'failed'),
    ]);
    expect(sets.map((s) => s.reference)).toEqual(['r2', 'r1']);
    expect(sets[1].samplers.get('pcg')).toEqual([
      [16, 0.3],
      [64, 0.2],
    ]);
    expect([...sets[0].samplers.keys()]).toEqual(['mixforge-cmj']);
  });

  it('fits the log-log slope', () => {
    const white: [number, number][] = [1, 4, 16, 64].map((n) => [n, 2 / Math.sqrt(n)]);
    expect(logLogSlope(white)).toBeCloseTo(-0.5, 10);
    expect(logLogSlope([[16, 1]])).toBeNull();
    expect(
      logLogSlope([
        [16, 1],
        [16, 2],
      ]),
    ).toBeNull();
  });

  it('reads a list of sample counts', () => {
    expect(parseSppList('64, 16 16,4', 1024)).toEqual([4, 16, 64]);
    expect(parseSppList('', 10)).toMatch(/at least one/);
    expect(parseSppList('4, 2.5', 10)).toMatch(/"2.5"/);
    expect(parseSppList('2048', 1024)).toMatch(/1 to 1024/);
  });
});
