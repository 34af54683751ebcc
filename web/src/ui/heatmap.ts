// The avalanche matrix as a heat map: cell (i, j) = probability that output bit j flips
// when input bit i flips; colour by deviation from 1/2 (white = ideal). Hover or move the
// keyboard cursor (arrow keys) to read a cell.
import { h } from '../lib/dom';

function colour(p: number, dark: boolean): [number, number, number] {
  // Diverging: blue below 1/2, red above; saturates at a deviation of 0.1.
  const d = Math.max(-1, Math.min(1, (p - 0.5) / 0.1));
  const base = dark ? 30 : 255;
  const t = Math.sqrt(Math.abs(d));
  const hi: [number, number, number] = d > 0 ? [214, 39, 40] : [31, 119, 180];
  return [0, 1, 2].map((k) => Math.round(base + (hi[k] - base) * t)) as [number, number, number];
}

export function heatmap(rows: number[][], label = 'avalanche matrix'): HTMLElement {
  const n = rows.length,
    m = rows[0]?.length ?? 0;
  const cell = Math.max(4, Math.min(16, Math.floor(512 / Math.max(n, m))));
  const canvas = h('canvas', {
    width: m * cell,
    height: n * cell,
    class: 'heat',
    tabindex: 0,
    role: 'img',
    'aria-label': `${label}: ${n} input bits by ${m} output bits; arrow keys read cells`,
  });
  const tip = h('div', { class: 'heat-tip mono', role: 'status', 'aria-live': 'polite' }, 'Hover a cell');
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const ctx = canvas.getContext('2d')!;
  const img = ctx.createImageData(m * cell, n * cell);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      const [r, g, b] = colour(rows[i][j], dark);
      for (let y = 0; y < cell; y++)
        for (let x = 0; x < cell; x++) {
          const o = ((i * cell + y) * m * cell + j * cell + x) * 4;
          const edge = cell >= 6 && (x === cell - 1 || y === cell - 1);
          img.data[o] = edge ? r * 0.92 : r;
          img.data[o + 1] = edge ? g * 0.92 : g;
          img.data[o + 2] = edge ? b * 0.92 : b;
          img.data[o + 3] = 255;
        }
    }
  ctx.putImageData(img, 0, 0);
  let cur: [number, number] = [0, 0];
  const show = (i: number, j: number) => {
    cur = [i, j];
    const p = rows[i][j];
    tip.textContent = `input bit ${i} → output bit ${j}: P(flip) = ${p.toFixed(6)}, deviation ${p - 0.5 >= 0 ? '+' : ''}${(p - 0.5).toExponential(3)}`;
    canvas.dataset.cell = `${i},${j}`;
  };
  canvas.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    const j = Math.floor(((e.clientX - r.left) / r.width) * m),
      i = Math.floor(((e.clientY - r.top) / r.height) * n);
    if (i >= 0 && i < n && j >= 0 && j < m) show(i, j);
  });
  canvas.addEventListener('keydown', (e) => {
    const [i, j] = cur;
    const moves: Record<string, [number, number]> = {
      ArrowUp: [i - 1, j],
      ArrowDown: [i + 1, j],
      ArrowLeft: [i, j - 1],
      ArrowRight: [i, j + 1],
    };
    const next = moves[e.key];
    if (!next) return;
    e.preventDefault();
    show(Math.max(0, Math.min(n - 1, next[0])), Math.max(0, Math.min(m - 1, next[1])));
  });
  const legend = h(
    'div',
    { class: 'heat-legend small muted' },
    'rows: input bit, columns: output bit; blue < 1/2 < red (full colour at ±0.1)',
  );
  return h('div', { class: 'heatmap' }, canvas, tip, legend);
}
