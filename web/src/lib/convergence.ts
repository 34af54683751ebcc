// Convergence of bakes measured against a reference bake (bake reports with `rmse` and
// `reference`): grouped by reference, one series per sampler of (spp, rmse) points, and the
// log-log slope of each (white noise converges as spp^-0.5; stratified samplers faster).
export interface BakeForConvergence {
  id: string;
  state: string;
  created_at: number;
  report?: { sampler: string; spp: number; rmse?: number | null; reference?: string | null } | null;
}

export interface ConvergenceSet {
  reference: string;
  newest: number; // created_at of the newest bake in the set
  samplers: Map<string, [spp: number, rmse: number][]>; // points sorted by spp
}

// Sets newest first. Of two bakes with the same sampler and spp the newer counts.
export function convergenceSets(bakes: BakeForConvergence[]): ConvergenceSet[] {
  const sorted = [...bakes].sort((a, b) => a.created_at - b.created_at);
  const sets = new Map<string, { newest: number; points: Map<string, Map<number, number>> }>();
  for (const b of sorted) {
    const r = b.report;
    if (b.state !== 'done' || !r || !r.reference || r.rmse === null || r.rmse === undefined || !(r.rmse > 0)) continue;
    let set = sets.get(r.reference);
    if (!set) sets.set(r.reference, (set = { newest: 0, points: new Map() }));
    set.newest = Math.max(set.newest, b.created_at);
    let bySpp = set.points.get(r.sampler);
    if (!bySpp) set.points.set(r.sampler, (bySpp = new Map()));
    bySpp.set(r.spp, r.rmse);
  }
  return [...sets.entries()]
    .map(([reference, s]) => ({
      reference,
      newest: s.newest,
      samplers: new Map(
        [...s.points.entries()].map(
          ([name, m]) => [name, [...m.entries()].sort((a, b) => a[0] - b[0])] as [string, [number, number][]],
        ),
      ),
    }))
    .sort((a, b) => b.newest - a.newest);
}

// Least-squares slope of ln(rmse) over ln(spp); null with fewer than two distinct spp.
export function logLogSlope(points: [number, number][]): number | null {
  const pts = points.filter(([x, y]) => x > 0 && y > 0);
  if (new Set(pts.map(([x]) => x)).size < 2) return null;
  const xs = pts.map(([x]) => Math.log(x)),
    ys = pts.map(([, y]) => Math.log(y));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length,
    my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0,
    den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return num / den;
}

// The spp list a user typed ("16, 64 256") -> sorted distinct positive integers, or an error.
export function parseSppList(text: string, max: number): number[] | string {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  if (!parts.length) return 'give at least one sample count';
  const out = new Set<number>();
  for (const p of parts) {
    const n = Number(p);
    if (!Number.isInteger(n) || n < 1 || n > max) return `"${p}" is not a whole number from 1 to ${max}`;
    out.add(n);
  }
  return [...out].sort((a, b) => a - b);
}
