// The best-chi2 chart's reference lines: published functions, each with its exact chi2 as
// tests/data/records.json or tests/data/mixers.json states it (web/test/reference_lines.test.ts
// checks that every line is such an entry, published, with the same value). Kept apart from
// ui/chart.ts so that the unit tests need no uPlot.
export interface RefLine {
  name: string;
  chi2: number;
}

export const REFERENCE_LINES: Record<number, RefLine[]> = {
  32: [
    // mixers.json writeup-32-a
    { name: 'write-up best 32-bit', chi2: 1.2573842986e-4 },
    // mixers.json lowbias32 (hash-prospector README)
    { name: 'lowbias32', chi2: 1.541831498e-5 },
    // records.json published-32-2round-best: [16 21f0aaad 15 735a2d97 15], hash-prospector
    // issue 19 (comment of 2022-05-07), the splitmix32 finaliser
    { name: 'best published 2-round', chi2: 5.866609322615138e-6 },
    // mixers.json triple32 (hash-prospector README)
    { name: 'triple32 (7 steps)', chi2: 2.2340235739e-7 },
  ],
  16: [
    // records.json published-16-2round: [8 a3d3 7 4b2d 9], hash-prospector issue 19
    { name: 'best published 16-bit 2-round', chi2: 0.006733454763889313 },
    // records.json published-16-3round: [11 b663 3 897d 6 ea57 8], hash-prospector issue 19
    { name: 'best published 16-bit 3-round', chi2: 0.0024437904357910156 },
  ],
  // mixers.json writeup-8-a
  8: [{ name: 'write-up 8-bit optimum', chi2: 0.10595703125 }],
};
