import { describe, expect, it } from 'vitest';
import { REFERENCE_LINES } from '../src/lib/reference_lines';
import mixers from '../../tests/data/mixers.json';
import records from '../../tests/data/records.json';

interface Entry {
  name: string;
  source: string;
  width: number;
  text: string;
  chi2: number;
}
const entries: Entry[] = [...(mixers as Entry[]), ...(records as Entry[])];
const published = entries.filter((e) => e.source.startsWith('published'));
const rounds = (e: Entry): number => e.text.split('\n').filter((s) => s.includes('*=')).length;

describe('reference lines', () => {
  it('are published functions with their exact chi2 from tests/data', () => {
    let lines = 0;
    for (const [width, refs] of Object.entries(REFERENCE_LINES)) {
      for (const ref of refs) {
        const same = published.filter((e) => e.width === Number(width) && e.chi2 === ref.chi2);
        expect(same.length, `${ref.name} (${width} bits)`).toBeGreaterThan(0);
        ++lines;
      }
    }
    expect(lines).toBe(7);
  });

  it('name as the best published only the lowest published function of its rounds', () => {
    const best = (width: number, r: number): number =>
      Math.min(...published.filter((e) => e.width === width && rounds(e) === r).map((e) => e.chi2));
    const line = (width: number, name: string): number => REFERENCE_LINES[width].find((l) => l.name === name)!.chi2;
    // [16 21f0aaad 15 735a2d97 15], hash-prospector issue 19 (comment of 2022-05-07)
    expect(line(32, 'best published 2-round')).toBe(5.866609322615138e-6);
    expect(line(32, 'best published 2-round')).toBe(best(32, 2));
    expect(line(16, 'best published 16-bit 2-round')).toBe(best(16, 2));
    expect(line(16, 'best published 16-bit 3-round')).toBe(best(16, 3));
  });
});
