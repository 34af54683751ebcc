// The best-chi2 chart: uPlot with a log y axis, reference lines of known functions, and
// min/max bucket decimation of the full history (kept in typed arrays) to the plot's pixel
// width, redone for the visible x range when zooming.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { GrowingSeries, minMaxDecimate } from '../lib/decimate';
import { sci } from '../lib/format';
import { h } from '../lib/dom';
import type { RefLine } from '../lib/reference_lines';

// The reference lines (published functions with their exact chi2): lib/reference_lines.ts.
export { REFERENCE_LINES } from '../lib/reference_lines';
export type { RefLine } from '../lib/reference_lines';

const stepped = uPlot.paths.stepped!({ align: 1 });
const PALETTE = ['#2f6fdf', '#d9534f', '#2a9d5b', '#b06ad9', '#e08a1e', '#1fa2a8', '#7a7a7a', '#c23b80'];

export interface ChartSeries {
  label: string;
  data: GrowingSeries;
}

export class Chi2Chart {
  readonly el: HTMLElement;
  private plot: uPlot | null = null;
  private refs: RefLine[] = [];
  private pending = 0;
  private range: [number, number] | null = null; // zoomed x range
  private observer: ResizeObserver;

  constructor(
    private series: ChartSeries[],
    private xLabel: string,
    refs: RefLine[] = [],
  ) {
    this.refs = refs;
    this.el = h('div', { class: 'chart', role: 'img', 'aria-label': 'best chi2 over ' + xLabel });
    this.observer = new ResizeObserver(() => this.resize());
    this.observer.observe(this.el);
  }

  setXLabel(label: string): void {
    this.xLabel = label;
    this.rebuild();
  }
  setSeries(series: ChartSeries[]): void {
    this.series = series;
    this.rebuild();
  }

  private width(): number {
    return Math.max(280, this.el.clientWidth || 800);
  }

  private data(): uPlot.AlignedData {
    const buckets = Math.max(50, Math.floor(this.width() / 2));
    const [x0, x1] = this.range ?? [-Infinity, Infinity];
    const parts = this.series.map((s) => minMaxDecimate(s.data, buckets, x0, x1));
    if (parts.length === 1) return [parts[0][0], parts[0][1]];
    return uPlot.join(parts.map(([x, y]) => [x, y] as uPlot.AlignedData));
  }

  private rebuild(): void {
    this.plot?.destroy();
    this.plot = null;
    if (!this.el.isConnected) return;
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    const fg = dark ? '#ccc' : '#333',
      grid = dark ? '#333' : '#e6e6e6';
    const axis = { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid } };
    const opts: uPlot.Options = {
      width: this.width(),
      height: 320,
      scales: { x: { time: false }, y: { distr: 3, range: (_u, min, max) => this.yRange(min, max) } },
      axes: [
        { ...axis, label: this.xLabel },
        {
          ...axis,
          label: 'best chi2 (log)',
          size: 70,
          values: (_u, vals) => vals.map((v) => (v === null || v === undefined ? '' : sci(v, 0))),
        },
      ],
      series: [
        { label: this.xLabel },
        ...this.series.map((s, i) => ({
          // Best-so-far is a step function: it holds until the next improvement.
          label: s.label,
          stroke: PALETTE[i % PALETTE.length],
          width: 1.5,
          spanGaps: true,
          paths: stepped,
          value: (_u: uPlot, v: number | null) => (v === null ? '–' : sci(v)),
        })),
      ],
      cursor: { drag: { x: true, y: false } },
      hooks: {
        setScale: [
          (u, key) => {
            if (key !== 'x') return;
            const { min, max } = u.scales.x;
            if (min === undefined || max === undefined) return;
            const zoomed = this.fullRange();
            const isFull = zoomed && min <= zoomed[0] && max >= zoomed[1];
            const next: [number, number] | null = isFull ? null : [min, max];
            if (JSON.stringify(next) !== JSON.stringify(this.range)) {
              this.range = next;
              queueMicrotask(() => this.plot?.setData(this.data(), false));
            }
          },
        ],
        draw: [(u) => this.drawRefs(u)],
      },
    };
    this.plot = new uPlot(opts, this.data(), this.el);
    this.plot.over.addEventListener('dblclick', () => {
      this.range = null;
      this.refresh();
    });
  }

  private fullRange(): [number, number] | null {
    let lo = Infinity,
      hi = -Infinity;
    for (const s of this.series) {
      if (!s.data.length) continue;
      lo = Math.min(lo, s.data.x[0]);
      hi = Math.max(hi, s.data.x[s.data.length - 1]);
    }
    return lo <= hi ? [lo, hi] : null;
  }

  private drawRefs(u: uPlot): void {
    const ctx = u.ctx;
    const { min, max } = u.scales.y;
    if (min === undefined || max === undefined) return;
    ctx.save();
    ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
    ctx.textAlign = 'left'; // uPlot leaves its axis-label alignment on the context
    ctx.textBaseline = 'bottom';
    ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
    for (const r of this.refs) {
      if (r.chi2 < min || r.chi2 > max) continue;
      const y = Math.round(u.valToPos(r.chi2, 'y', true));
      ctx.strokeStyle = '#999';
      ctx.lineWidth = devicePixelRatio;
      ctx.beginPath();
      ctx.moveTo(u.bbox.left, y);
      ctx.lineTo(u.bbox.left + u.bbox.width, y);
      ctx.stroke();
      ctx.fillStyle = '#888';
      ctx.fillText(`${r.name} ${sci(r.chi2, 3)}`, u.bbox.left + 6 * devicePixelRatio, y - 3 * devicePixelRatio);
    }
    ctx.restore();
  }

  // The y range: the data's, widened to reference lines within two decades of it.
  private yRange(min: number | null, max: number | null): uPlot.Range.MinMax {
    if (min === null || max === null || !(min > 0)) return [1e-8, 1];
    let lo = min,
      hi = max;
    for (const r of this.refs)
      if (r.chi2 >= min / 100 && r.chi2 <= max * 100) {
        lo = Math.min(lo, r.chi2);
        hi = Math.max(hi, r.chi2);
      }
    return [lo / 1.5, hi * 1.5];
  }

  // Redraws from the current series (coalesced to one animation frame).
  refresh(): void {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = 0;
      if (!this.plot) {
        this.rebuild();
      } else {
        this.plot.setData(this.data(), this.range === null);
      }
    });
  }

  private resize(): void {
    if (!this.plot) {
      if (this.el.isConnected) this.rebuild();
      this.refresh();
      return;
    }
    this.plot.setSize({ width: this.width(), height: 320 });
    this.refresh();
  }

  dispose(): void {
    this.observer.disconnect();
    cancelAnimationFrame(this.pending);
    this.plot?.destroy();
  }
}
