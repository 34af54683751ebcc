// The Pareto front of a run (GET /api/v1/runs/{id}/front) as plot points, and the RRC
// depth as text: pure functions the run and function pages share.
import type { ScoredFunction } from '../api/client';

type Objective = NonNullable<ScoredFunction['objective']>;

// "13" (first failure at 2^13), ">20" (passed the cap 2^20), '–' when not measured.
export function depthText(o: Objective | null | undefined): string {
  if (!o || o.rrc_cap_log2 == null || o.rrc_depth_log2 == null) return '–';
  return o.rrc_passed_cap ? `>${o.rrc_cap_log2}` : String(o.rrc_depth_log2);
}

// The longest stream length passed (log2): what the front compares.
export function survived(o: Objective | null | undefined): number | null {
  if (!o || o.rrc_cap_log2 == null || o.rrc_depth_log2 == null) return null;
  return o.rrc_passed_cap ? o.rrc_cap_log2 : o.rrc_depth_log2 - 1;
}

export interface FrontPoint {
  id: string;
  x: number; // 0..1: log10(chi2) across the plot, lower chi2 to the left
  y: number; // 0..1: survived depth, deeper up (0.5 when the run measures no depth)
  steps: number;
  label: string;
}

// Points scaled to the unit square; the axes' ranges for their labels.
export function frontPoints(items: ScoredFunction[]): {
  points: FrontPoint[];
  chi2: [number, number];
  depth: [number, number] | null;
} {
  const logs = items.map((f) => Math.log10(Math.max(f.chi2, 1e-300)));
  const lo = Math.min(...logs),
    hi = Math.max(...logs);
  const depths = items.map((f) => survived(f.objective));
  const known = depths.filter((d): d is number => d !== null);
  const dlo = known.length ? Math.min(...known) : 0,
    dhi = known.length ? Math.max(...known) : 0;
  const points = items.map((f, i) => {
    const d = depths[i];
    return {
      id: f.id,
      x: hi > lo ? (logs[i] - lo) / (hi - lo) : 0.5,
      y: d === null ? 0.5 : dhi > dlo ? (d - dlo) / (dhi - dlo) : 0.5,
      steps: f.steps,
      label: `${f.short} — chi2 ${f.chi2.toExponential(4)}, RRC depth ${depthText(f.objective)}, ${f.steps} steps`,
    };
  });
  return {
    points,
    chi2: [items.length ? 10 ** lo : 0, items.length ? 10 ** hi : 0],
    depth: known.length ? [dlo, dhi] : null,
  };
}
