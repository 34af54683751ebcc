import { describe, expect, it } from 'vitest';
import type { ScoredFunction } from '../src/api/client';
import { depthText, frontPoints, survived } from '../src/lib/front';

function fn(id: string, chi2: number, steps: number, depth: number | null, passed = false): ScoredFunction {
  return {
    id,
    chi2,
    steps,
    short: id,
    text: id,
    objective:
      depth === null
        ? undefined
        : {
            bic: 0,
            bic_stderr: 0,
            bic_exact: false,
            higher_order: 0,
            higher_order_stderr: 0,
            samples: 0,
            penalty: 0,
            total: chi2,
            rrc_cap_log2: 20,
            rrc_depth_log2: depth,
            rrc_passed_cap: passed,
          },
  } as unknown as ScoredFunction;
}

describe('front', () => {
  it('writes the depth as the field does', () => {
    expect(depthText(fn('a', 1, 5, 13).objective)).toBe('13');
    expect(depthText(fn('a', 1, 5, 20, true).objective)).toBe('>20');
    expect(depthText(undefined)).toBe('–');
    expect(survived(fn('a', 1, 5, 13).objective)).toBe(12);
    expect(survived(fn('a', 1, 5, 20, true).objective)).toBe(20);
    expect(survived(fn('a', 1, 5, 20).objective)).toBe(19);
  });

  it('places lower chi2 left and deeper functions up', () => {
    const { points, chi2, depth } = frontPoints([
      fn('deep', 1e-4, 5, 18),
      fn('low', 1e-6, 5, 13),
      fn('mid', 1e-5, 3, 15),
    ]);
    expect(chi2[0]).toBeCloseTo(1e-6, 12);
    expect(chi2[1]).toBeCloseTo(1e-4, 10);
    expect(depth).toEqual([12, 17]);
    const at = (id: string) => points.find((p) => p.id === id)!;
    expect(at('low').x).toBe(0);
    expect(at('deep').x).toBe(1);
    expect(at('mid').x).toBeCloseTo(0.5, 12);
    expect(at('deep').y).toBe(1);
    expect(at('low').y).toBe(0);
    expect(at('mid').label).toContain('RRC depth 15');
  });

  it('puts a run without depths on one line', () => {
    const { points, depth } = frontPoints([fn('a', 1e-5, 5, null), fn('b', 2e-5, 3, null)]);
    expect(depth).toBeNull();
    expect(points.every((p) => p.y === 0.5)).toBe(true);
  });
});
