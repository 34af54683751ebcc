// Min/max bucket downsampling: keeps every extreme a pixel column would show, so a long
// curve drawn from 10^6 points looks the same as from all of them, at 4 points per column.

export interface Series {
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  length: number;
}

// First index i with x[i] >= v (x sorted ascending).
export function lowerBound(x: ArrayLike<number>, length: number, v: number): number {
  let lo = 0,
    hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Points of s within [x0, x1] (plus one neighbour each side so lines reach the edges),
// reduced to at most ~4 per bucket: the first, min, max and last of each of `buckets`
// equal-width x buckets, in x order. Non-finite y values are skipped.
export function minMaxDecimate(s: Series, buckets: number, x0 = -Infinity, x1 = Infinity): [number[], number[]] {
  const n = s.length;
  const outX: number[] = [],
    outY: number[] = [];
  if (n === 0) return [outX, outY];
  const start = Math.max(0, lowerBound(s.x, n, x0) - 1);
  const end = Math.min(n, lowerBound(s.x, n, x1) + 1); // exclusive
  if (end - start <= buckets * 4) {
    for (let i = start; i < end; i++) {
      if (Number.isFinite(s.y[i])) {
        outX.push(s.x[i]);
        outY.push(s.y[i]);
      }
    }
    return [outX, outY];
  }
  const lo = s.x[start],
    hi = s.x[end - 1];
  const width = (hi - lo) / buckets || 1;
  let i = start;
  for (let b = 0; b < buckets && i < end; b++) {
    const limit = b === buckets - 1 ? Infinity : lo + (b + 1) * width;
    let first = -1,
      last = -1,
      imin = -1,
      imax = -1;
    for (; i < end && s.x[i] < limit; i++) {
      const y = s.y[i];
      if (!Number.isFinite(y)) continue;
      if (first < 0) first = i;
      last = i;
      if (imin < 0 || y < s.y[imin]) imin = i;
      if (imax < 0 || y > s.y[imax]) imax = i;
    }
    if (first < 0) continue;
    const picks = [first, imin, imax, last].sort((a, c) => a - c);
    let prev = -1;
    for (const p of picks) {
      if (p === prev) continue;
      outX.push(s.x[p]);
      outY.push(s.y[p]);
      prev = p;
    }
  }
  return [outX, outY];
}

// A growable pair of Float64Arrays (amortised O(1) append, no per-point objects).
export class GrowingSeries implements Series {
  x = new Float64Array(1024);
  y = new Float64Array(1024);
  length = 0;

  push(x: number, y: number): void {
    if (this.length > 0 && x < this.x[this.length - 1]) return; // keep x sorted
    if (this.length === this.x.length) {
      const nx = new Float64Array(this.x.length * 2),
        ny = new Float64Array(this.y.length * 2);
      nx.set(this.x);
      ny.set(this.y);
      this.x = nx;
      this.y = ny;
    }
    this.x[this.length] = x;
    this.y[this.length] = y;
    this.length++;
  }

  clear(): void {
    this.length = 0;
  }
  lastX(): number {
    return this.length ? this.x[this.length - 1] : -Infinity;
  }
}
