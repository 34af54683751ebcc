import { describe, expect, it } from 'vitest';
import { compileApply } from '../src/lib/apply';

describe('compileApply', () => {
  it('computes lowbias32', () => {
    const f = compileApply({
      width: 32,
      steps: [
        { kind: 'xorshift-right', shift: 16 },
        { kind: 'mul-const', constant: '0x7feb352d' },
        { kind: 'xorshift-right', shift: 15 },
        { kind: 'mul-const', constant: '0x846ca68b' },
        { kind: 'xorshift-right', shift: 16 },
      ],
    });
    // Values of lowbias32 computed independently (Python, arbitrary precision).
    expect(f(0)).toBe(0);
    expect(f(1)).toBe(1753845952);
    expect(f(0xdeadbeef)).toBe(3861431939);
  });
  it('masks narrow widths after every step that can carry', () => {
    const f = compileApply({
      width: 8,
      steps: [
        { kind: 'mul-const', constant: '0x41' },
        { kind: 'rotate', shift: 3 },
        { kind: 'add-shift', shift: 4 },
      ],
    });
    for (let x = 0; x < 256; x++) {
      let v = (x * 0x41) & 255;
      v = ((v << 3) | (v >> 5)) & 255;
      v = (v + (v << 4)) & 255;
      expect(f(x)).toBe(v);
    }
  });
});
