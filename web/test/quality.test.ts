import { describe, expect, it } from 'vitest';
import { qualitySummary } from '../src/lib/quality';

describe('qualitySummary', () => {
  it('says when no report was computed', () => {
    expect(qualitySummary(null)).toBe('–');
    expect(qualitySummary(undefined)).toBe('–');
  });
  it('lists the verdicts and the battery counts of a standard report', () => {
    expect(
      qualitySummary({
        size: 'standard',
        bit_independence: 'failed',
        higher_order: [
          { flipped_bits: 2, verdict: 'failed' },
          { flipped_bits: 3, verdict: 'passed' },
        ],
        battery: { status: 'ran', passed: 69, weak: 2, failed: 1 },
      }),
    ).toBe('BIC failed · 2-bit flips failed · 3-bit flips passed · dieharder 69/2/1');
  });
  it('marks a quick report and leaves out a battery that did not run', () => {
    expect(
      qualitySummary({
        size: 'quick',
        bit_independence: null,
        higher_order: [],
        battery: { status: 'skipped', passed: 0, weak: 0, failed: 0 },
      }),
    ).toBe('no verdicts (quick)');
  });
});
