import { describe, expect, it } from 'vitest';
import {
  cmjInts,
  cmjPoint,
  concentricDisk,
  laneConstants,
  lcg,
  mortonCell,
  pcg,
  stratified,
  unitJitter,
  widthMask,
} from '../src/lib/cmj';

const M = 16;
const set = (hash: (x: number) => number, width: number, p: number) =>
  Array.from({ length: M * M }, (_, s) => cmjInts(hash, width, M, s, p));

describe('mixforge-cmj in the preview', () => {
  it('visits the cells in Morton order', () => {
    expect([0, 1, 2, 3, 4, 5].map(mortonCell)).toEqual([
      [0, 0],
      [1, 0],
      [0, 1],
      [1, 1],
      [2, 0],
      [3, 0],
    ]);
    const cells = new Set(Array.from({ length: 256 }, (_, s) => mortonCell(s).join(',')));
    expect(cells.size).toBe(256);
  });

  it('is stratified for any bijective hash, good or weak', () => {
    const random = (seed: number) => (x: number) => pcg((x ^ seed) >>> 0); // a bijection of 32-bit words
    for (const [hash, width] of [
      [random(1), 32],
      [random(99), 32],
      [lcg, 32],
      [pcg, 32],
    ] as const)
      for (const p of [1, 2, 7]) expect(stratified(set(hash, width, p), M)).toBe(true);
  });

  it('masks keys and jitters to the function width', () => {
    expect(widthMask(16)).toBe(0xffff);
    expect(laneConstants(1, 16)).toEqual([0xe9b3, 0x3595, 0xd265, 0xd6a5]);
    const bij16 = (x: number) => Math.imul(x, 0x9e35) & 0xffff; // odd multiplier: a bijection mod 2^16
    const s16 = set(bij16, 16, 3);
    expect(stratified(s16, M)).toBe(true);
    expect(s16.every((c) => c.hz <= 0xffff && c.hw <= 0xffff)).toBe(true);
    expect(unitJitter(0xffff, 16)).toBeLessThan(1);
    expect(unitJitter(0xffffffff, 32)).toBe(1 - 2 ** -24);
    for (let s = 0; s < 256; s++) {
      const [x, y] = cmjPoint(s16[s], s, M, 16);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThan(1);
    }
  });

  it('refuses a set that is not a permutation', () => {
    const s = set(pcg, 32, 1);
    s[5] = { ...s[5], sy: s[6].sy };
    expect(stratified(s, M)).toBe(false);
  });

  it('maps the square onto the disk', () => {
    for (const [x, y] of [
      [0.1, 0.9],
      [0.5, 0.5],
      [0.99, 0.3],
    ]) {
      const [a, b] = concentricDisk(x, y);
      expect(a * a + b * b).toBeLessThanOrEqual(1 + 1e-12);
    }
    const [a, b] = concentricDisk(1, 0.5);
    expect(a).toBeCloseTo(1);
    expect(b).toBeCloseTo(0);
  });
});
