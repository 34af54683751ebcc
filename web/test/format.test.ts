import { describe, expect, it } from 'vitest';
import { age, csv, duration, percent, rate, samples, sci } from '../src/lib/format';

describe('format', () => {
  it('writes chi2 in scientific notation', () => {
    expect(sci(1.541831498e-5)).toBe('1.5418e-5');
    expect(sci(0.10595703125, 3)).toBe('1.060e-1');
    expect(sci(0)).toBe('0');
    expect(sci(null)).toBe('–');
    expect(sci(NaN)).toBe('–');
  });
  it('writes rates with units and sensible digits', () => {
    expect(rate(57.803735946803094)).toBe('57.8 /s');
    expect(rate(33912.4)).toBe('33,912 /s');
    expect(rate(0.5)).toBe('0.50 /s');
    expect(percent(0.2610373572090151)).toBe('26.1 %');
  });
  it('writes sample counts as powers of two where they are', () => {
    expect(samples(4194304)).toBe('2^22');
    expect(samples(1000)).toBe('1,000');
    expect(samples(0)).toBe('–');
  });
  it('writes durations and ages', () => {
    expect(duration(3.25)).toBe('3.3 s');
    expect(duration(125)).toBe('2 min 5 s');
    expect(duration(7200 + 180)).toBe('2 h 3 min');
    expect(age(1000, 1090)).toBe('1 min 30 s ago');
    expect(age(2000, 1000)).toBe('0.0 s ago');
  });
  it('quotes CSV fields per RFC 4180', () => {
    expect(
      csv(
        ['a', 'b'],
        [
          [1, 'x, y'],
          ['say "hi"', null],
        ],
      ),
    ).toBe('a,b\r\n1,"x, y"\r\n"say ""hi""",\r\n');
  });
});
