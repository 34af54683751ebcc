import { describe, expect, it } from 'vitest';
import { GrowingSeries, lowerBound, minMaxDecimate } from '../src/lib/decimate';

function series(n: number, f: (i: number) => number): GrowingSeries {
  const s = new GrowingSeries();
  for (let i = 0; i < n; i++) s.push(i, f(i));
  return s;
}

describe('minMaxDecimate', () => {
  it('returns small series unchanged', () => {
    const s = series(10, (i) => i * i);
    const [x, y] = minMaxDecimate(s, 100);
    expect(x).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(y[9]).toBe(81);
  });

  it('keeps every bucket extreme of 10^6 points with at most 4 points per bucket', () => {
    // A noisy decreasing curve with rare spikes: the spikes must survive.
    const n = 1_000_000;
    const s = series(n, (i) => 1 / (1 + i) + (i % 99_991 === 0 ? 5 : 0) + ((i * 2654435761) % 1000) * 1e-9);
    const buckets = 800;
    const t0 = performance.now();
    const [x, y] = minMaxDecimate(s, buckets);
    const ms = performance.now() - t0;
    expect(x.length).toBeLessThanOrEqual(buckets * 4);
    expect(x.length).toBeGreaterThan(buckets);
    for (let i = 1; i < x.length; i++) expect(x[i]).toBeGreaterThan(x[i - 1]);
    // Global extremes and every spike are kept.
    expect(y.reduce((a, b) => Math.max(a, b))).toBe(s.y.subarray(0, n).reduce((a, b) => Math.max(a, b)));
    for (let i = 99_991; i < n; i += 99_991) expect(x).toContain(i);
    expect(x[0]).toBe(0);
    expect(x[x.length - 1]).toBe(n - 1);
    console.log(`decimated 10^6 points to ${x.length} in ${ms.toFixed(1)} ms`);
  });

  it('restricts to the visible range plus one neighbour on each side', () => {
    const s = series(100_000, (i) => i);
    const [x] = minMaxDecimate(s, 10, 5000, 6000);
    expect(x[0]).toBe(4999);
    expect(x[x.length - 1]).toBe(6000);
  });

  it('skips non-finite values', () => {
    const s = series(5, (i) => (i === 2 ? NaN : i));
    expect(minMaxDecimate(s, 10)[0]).toEqual([0, 1, 3, 4]);
  });
});

describe('GrowingSeries', () => {
  it('grows and keeps x sorted', () => {
    const s = new GrowingSeries();
    for (let i = 0; i < 5000; i++) s.push(i, i);
    s.push(10, 1); // out of order: dropped
    expect(s.length).toBe(5000);
    expect(lowerBound(s.x, s.length, 2500.5)).toBe(2501);
  });
});
