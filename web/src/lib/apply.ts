// The reference evaluation of a program (widths <= 32) in JavaScript, to check what the
// GPU computed. Same semantics as mixer/'s interpreter: arithmetic mod 2^width.
import type { Schemas } from '../api/client';

type Program = Schemas['program'];

function constant(c: string | number | undefined): number {
  if (c === undefined) return 0;
  return Number(BigInt(c) & 0xffffffffn);
}

export function compileApply(p: Program): (x: number) => number {
  const w = p.width;
  if (w > 32) throw new Error('JavaScript reference covers widths up to 32');
  const mask = w === 32 ? 0xffffffff : 2 ** w - 1;
  const ops = p.steps.map((s) => {
    const c = constant(s.constant) >>> 0,
      k = s.shift ?? 0;
    switch (s.kind) {
      case 'xor-const':
      case 'xor':
        return (x: number) => (x ^ c) >>> 0;
      case 'mul-const':
      case 'mul':
        return (x: number) => (Math.imul(x, c) & mask) >>> 0;
      case 'add-const':
      case 'add':
        return (x: number) => ((x + c) & mask) >>> 0;
      case 'sub-const':
      case 'sub':
        return (x: number) => ((x - c) & mask) >>> 0;
      case 'xorshift-right':
      case 'xsr':
        return (x: number) => (x ^ (x >>> k)) >>> 0;
      case 'xorshift-left':
      case 'xsl':
        return (x: number) => ((x ^ (x << k)) & mask) >>> 0;
      case 'add-shift':
      case 'adds':
        return (x: number) => ((x + (x << k)) & mask) >>> 0;
      case 'sub-shift':
      case 'subs':
        return (x: number) => ((x - (x << k)) & mask) >>> 0;
      case 'rotate':
      case 'rot':
        return (x: number) => (((x << k) | (x >>> (w - k))) & mask) >>> 0;
    }
    throw new Error(`unknown step kind ${String(s.kind)}`);
  });
  return (x0: number) => {
    let x = (x0 & mask) >>> 0;
    for (const op of ops) x = op(x);
    return x;
  };
}
