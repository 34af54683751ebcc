import type { HallOfFameQuality } from '../api/client';

// One line for a hall-of-fame entry's cached quality report: its verdicts, and
// dieharder's passed/weak/failed counts when the battery ran. '–' when none was computed
// (the function page computes one).
export function qualitySummary(q: HallOfFameQuality | null | undefined): string {
  if (!q) return '–';
  const parts: string[] = [];
  if (q.bit_independence) parts.push(`BIC ${q.bit_independence}`);
  for (const o of q.higher_order) parts.push(`${o.flipped_bits}-bit flips ${o.verdict}`);
  if (q.battery.status === 'ran') parts.push(`dieharder ${q.battery.passed}/${q.battery.weak}/${q.battery.failed}`);
  const text = parts.length ? parts.join(' · ') : 'no verdicts';
  return q.size === 'quick' ? `${text} (quick)` : text;
}
