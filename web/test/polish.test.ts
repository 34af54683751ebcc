import { describe, expect, it } from 'vitest';
import { climbText, parseSeedPrograms, polishRunBody } from '../src/lib/polish';

describe('parseSeedPrograms', () => {
  it('takes one program per block, blank lines between them', () => {
    const text = 'x ^= x >> 16;\nx *= 0x21f0aaad;\nx ^= x >> 15;\n\n  \nx ^= x >> 8; x *= 0xa3d3;\n';
    expect(parseSeedPrograms(text)).toEqual([
      'x ^= x >> 16;\nx *= 0x21f0aaad;\nx ^= x >> 15;',
      'x ^= x >> 8; x *= 0xa3d3;',
    ]);
  });
  it('keeps a one-line program whole (commas and spaces are not separators)', () => {
    expect(parseSeedPrograms('x ^= x >> 16; x *= 0x7feb352d, x ^= x >> 15;')).toEqual([
      'x ^= x >> 16; x *= 0x7feb352d, x ^= x >> 15;',
    ]);
  });
  it('gives nothing for an empty or blank box (the field is then not sent)', () => {
    expect(parseSeedPrograms('')).toEqual([]);
    expect(parseSeedPrograms(' \n\n \r\n')).toEqual([]);
  });
  it('reads Windows line ends', () => {
    expect(parseSeedPrograms('x ^= x >> 3;\r\n\r\nx *= 0x9;')).toEqual(['x ^= x >> 3;', 'x *= 0x9;']);
  });
});

describe('polishRunBody', () => {
  const f = {
    id: 'e32f1e173c7c3985',
    short: 'xsr 8, mul 0xa3d3, xsr 7, mul 0x4b2d, xsr 9',
    text: 'x ^= x >> 8;\nx *= 0xa3d3;\nx ^= x >> 7;\nx *= 0x4b2d;\nx ^= x >> 9;',
    width: 16,
    steps: 5,
  };
  it('seeds a run of the function at its width and length', () => {
    const body = polishRunBody(f);
    expect(body.seed_programs).toEqual([f.text]);
    expect(body.width).toBe(16);
    expect(body.max_steps).toBe(5);
    expect(body.threads).toBe(1);
    expect(body.budget).toEqual({ seconds: 3600 });
    expect(body.name).toBe('polish xsr 8, mul 0xa3d3, xsr 7, mul 0x4b2d, xsr 9');
  });
  it('takes another time limit', () => {
    expect(polishRunBody(f, 60).budget).toEqual({ seconds: 60 });
  });
});

describe('climbText', () => {
  const centre = { short: 'xsr 8, mul 0xa3d3', chi2_exact: 0.0067334547638893127 };
  it('says where a climb is in its neighbourhood', () => {
    expect(
      climbText({ centre, moves: 1, scored: 40, phase: 'pairs', position: 12, neighbourhood: 630, done: false }),
    ).toBe('pairs of moves 12/630 around xsr 8, mul 0xa3d3 (exact chi2 6.7335e-3); 1 move, 40 exact scores');
    expect(
      climbText({ centre, moves: 0, scored: 2, phase: 'singles', position: 1, neighbourhood: 36, done: false }),
    ).toBe('single moves 1/36 around xsr 8, mul 0xa3d3 (exact chi2 6.7335e-3); 0 moves, 2 exact scores');
  });
  it('names the local optimum of a finished climb', () => {
    expect(
      climbText({ centre, moves: 2, scored: 700, phase: 'pairs', position: 630, neighbourhood: 630, done: true }),
    ).toBe('local optimum xsr 8, mul 0xa3d3 (exact chi2 6.7335e-3); 2 moves, 700 exact scores');
  });
  it('before the seed is scored', () => {
    expect(
      climbText({ centre: null, moves: 0, scored: 0, phase: 'singles', position: 0, neighbourhood: 0, done: false }),
    ).toBe('scoring the seed exactly…');
  });
});
