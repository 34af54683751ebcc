// mixforge-cmj in the function page's preview: Kensler's correlated multi-jittered sets with
// the hashes replaced by one mixing function, as the baker's sampler builds them
// (baker/sampling/mixforge_cmj.cpp, there with a 4-lane family; here every lane is the function
// shown): sample s is the s-th cell of the m x n grid in Morton order, its column and row
// permutations are exact ranks of hashed keys, its jitters two more hashes.
// The integer parts (ranks and raw jitter hashes) are what the GPU computes and what is
// compared bit for bit; the points are made from them here.

export const LANES = [0xa511e9b3, 0x63d83595, 0xa399d265, 0x711ad6a5] as const;

export interface CmjInts {
  sx: number;
  sy: number;
  hz: number;
  hw: number;
}

export function widthMask(width: number): number {
  return width >= 32 ? 0xffffffff : 2 ** width - 1;
}

// The lanes' constants for pattern p, within the width.
export function laneConstants(p: number, width: number): number[] {
  const mask = widthMask(width);
  return LANES.map((k) => ((Math.imul(p, k) >>> 0) & mask) >>> 0);
}

// Bits 0, 2, 4, ... of s (the x of a Morton code); compact(s >>> 1) gives y.
export function compactBits(s: number): number {
  let v = s & 0x55555555;
  v = (v | (v >>> 1)) & 0x33333333;
  v = (v | (v >>> 2)) & 0x0f0f0f0f;
  v = (v | (v >>> 4)) & 0x00ff00ff;
  v = (v | (v >>> 8)) & 0x0000ffff;
  return v;
}

// Cell (i, j) of sample s on a square 2^k x 2^k grid (Morton order = the baker's order there).
export function mortonCell(s: number): [number, number] {
  return [compactBits(s), compactBits(s >>> 1)];
}

// The integer parts of sample s of pattern p on an m x m grid (m a power of two).
export function cmjInts(hash: (x: number) => number, width: number, m: number, s: number, p: number): CmjInts {
  const mask = widthMask(width);
  const [c0, c1, c2, c3] = laneConstants(p, width);
  const H = (x: number) => (hash((x & mask) >>> 0) & mask) >>> 0;
  const [i, j] = mortonCell(s);
  const kx = H(i ^ c0),
    ky = H(j ^ c1);
  let sx = 0,
    sy = 0;
  for (let k = 0; k < m; k++) {
    if (H(k ^ c0) < kx) sx++;
    if (H(k ^ c1) < ky) sy++;
  }
  return { sx, sy, hz: H(s ^ c2), hw: H(s ^ c3) };
}

// A hash value as a jitter in [0, 1): its top 24 bits (the baker's unit_float for 32 bits).
export function unitJitter(h: number, width: number): number {
  return width > 24 ? Math.floor(h / 2 ** (width - 24)) * 2 ** -24 : h / 2 ** width;
}

export function cmjPoint(c: CmjInts, s: number, m: number, width: number): [number, number] {
  const [i, j] = mortonCell(s);
  return [(i + (c.sy + unitJitter(c.hz, width)) / m) / m, (j + (c.sx + unitJitter(c.hw, width)) / m) / m];
}

// Correlated multi-jittered: every coarse cell, every one of the m*m column strata and every
// one of the m*m row strata holds exactly one sample.
export function stratified(ints: CmjInts[], m: number): boolean {
  const n = m * m;
  if (ints.length !== n) return false;
  const cols = new Set<number>(),
    rows = new Set<number>(),
    cells = new Set<number>();
  ints.forEach((c, s) => {
    const [i, j] = mortonCell(s);
    if (c.sx >= m || c.sy >= m) return;
    cols.add(i * m + c.sy);
    rows.add(j * m + c.sx);
    cells.add(j * m + i);
  });
  return cols.size === n && rows.size === n && cells.size === n;
}

// Shirley and Chiu's concentric map of the unit square to the unit disk (baker/sampling/hemisphere.hpp).
export function concentricDisk(x: number, y: number): [number, number] {
  const a = 2 * x - 1,
    b = 2 * y - 1;
  if (a === 0 && b === 0) return [0, 0];
  if (Math.abs(a) > Math.abs(b)) {
    const phi = (Math.PI / 4) * (b / a);
    return [a * Math.cos(phi), a * Math.sin(phi)];
  }
  const phi = Math.PI / 2 - (Math.PI / 4) * (a / b);
  return [b * Math.cos(phi), b * Math.sin(phi)];
}

// Cosine-weighted hemisphere direction (z up) of a point of the unit square.
export function cosineHemisphere(x: number, y: number): [number, number, number] {
  const [dx, dy] = concentricDisk(x, y);
  return [dx, dy, Math.sqrt(Math.max(0, 1 - dx * dx - dy * dy))];
}

// The two baselines of the preview, as GLSL computes them (preview.ts BASELINES).
export function lcg(x: number): number {
  return (Math.imul(x, 1664525) + 1013904223) >>> 0;
}
export function pcg(v: number): number {
  const state = (Math.imul(v, 747796405) + 2891336453) >>> 0;
  const word = Math.imul(((state >>> ((state >>> 28) + 4)) ^ state) >>> 0, 277803737) >>> 0;
  return ((word >>> 22) ^ word) >>> 0;
}
