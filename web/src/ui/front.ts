// The run's Pareto front: chi2 (log scale, across) against RRC depth (up), steps as the
// colour, with a table of the same functions (each a link to its page).
import { api, call, ApiError, type ScoredFunction } from '../api/client';
import { depthText, frontPoints } from '../lib/front';
import { h, replace } from '../lib/dom';
import { sci } from '../lib/format';

const SVG = 'http://www.w3.org/2000/svg';
const W = 520,
  H = 260,
  PAD = 44;

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

function text(x: number, y: number, s: string, anchor = 'middle'): SVGTextElement {
  const t = svg('text', { x, y, 'text-anchor': anchor, class: 'axis-label' });
  t.textContent = s;
  return t;
}

// Fewer steps: blue; more: red.
function colour(steps: number, lo: number, hi: number): string {
  const t = hi > lo ? (steps - lo) / (hi - lo) : 0;
  return `hsl(${Math.round(220 - 220 * t)}, 70%, 45%)`;
}

function plot(items: ScoredFunction[], withDepth: boolean): SVGSVGElement {
  const { points, chi2, depth } = frontPoints(items);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'front-plot' });
  root.setAttribute('aria-label', `Pareto front: ${items.length} functions, chi2 across, RRC depth up`);
  root.append(
    svg('rect', { x: PAD, y: 8, width: W - PAD - 8, height: H - PAD - 8, class: 'plot-frame', fill: 'none' }),
  );
  root.append(text(PAD, H - PAD + 16, sci(chi2[0], 3), 'start'), text(W - 8, H - PAD + 16, sci(chi2[1], 3), 'end'));
  root.append(text((W + PAD) / 2, H - 8, 'avalanche chi2 (log scale; lower is better)'));
  if (withDepth && depth) {
    root.append(text(PAD - 6, H - PAD, String(depth[0]), 'end'), text(PAD - 6, 20, String(depth[1]), 'end'));
    const yl = text(12, (H - PAD) / 2, 'RRC depth passed (log2)');
    yl.setAttribute('transform', `rotate(-90 12 ${(H - PAD) / 2})`);
    root.append(yl);
  }
  const steps = items.map((f) => f.steps);
  const lo = Math.min(...steps),
    hi = Math.max(...steps);
  for (const p of points) {
    const a = svg('a', { href: `#/functions/${p.id}` });
    const c = svg('circle', {
      cx: PAD + 6 + p.x * (W - PAD - 20),
      cy: H - PAD - 6 - p.y * (H - PAD - 20),
      r: 5,
      fill: colour(p.steps, lo, hi),
      'data-id': p.id,
    });
    const title = svg('title', {});
    title.textContent = p.label;
    c.append(title);
    a.append(c);
    root.append(a);
  }
  return root;
}

// A section that loads the front on load() (and again on each call).
export class FrontPanel {
  readonly el: HTMLElement;
  private readonly body = h('div', { class: 'front' });

  constructor(private readonly runId: string) {
    this.el = h(
      'section',
      { 'aria-label': 'Pareto front' },
      h(
        'div',
        { class: 'row' },
        h('h2', null, 'Pareto front'),
        h('button', { type: 'button', class: 'small', onclick: () => void this.load() }, 'Refresh'),
      ),
      h(
        'p',
        { class: 'muted small' },
        'Leaders no other leader beats on every score at once: lower chi2, deeper RRC depth (when the run measures it: objective.rrc_weight), fewer steps. Colour: steps (blue fewer, red more).',
      ),
      this.body,
    );
  }

  async load(): Promise<void> {
    try {
      const front = await call(() => api.GET('/api/v1/runs/{id}/front', { params: { path: { id: this.runId } } }));
      const withDepth = front.objectives.includes('rrc_depth_log2');
      if (!front.items.length) {
        replace(this.body, h('p', { class: 'muted' }, 'No leaders yet.'));
        return;
      }
      const rows = front.items.map((f) =>
        h(
          'tr',
          null,
          h('td', { class: 'mono' }, h('a', { href: `#/functions/${f.id}` }, f.short)),
          h('td', { class: 'num' }, sci(f.chi2, 5)),
          h('td', { class: 'num' }, depthText(f.objective)),
          h('td', { class: 'num' }, String(f.steps)),
        ),
      );
      replace(
        this.body,
        plot(front.items, withDepth),
        h(
          'p',
          { class: 'muted small' },
          `${front.items.length} on the front of ${front.considered} leaders; scores compared: ${front.objectives.join(', ')}.`,
        ),
        h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'front-table' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', null, 'function'),
                h('th', null, 'chi2'),
                h('th', null, 'RRC depth'),
                h('th', null, 'steps'),
              ),
            ),
            h('tbody', null, rows),
          ),
        ),
      );
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      replace(this.body, h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));
    }
  }
}
