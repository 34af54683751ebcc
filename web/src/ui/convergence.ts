// The Bakes page's convergence panel: a benchmark run through the daemon's API (a
// reference bake at many spp, then every chosen sampler at every chosen spp measured
// against it), and the log-log chart of RMSE over spp of the newest such series, drawn
// from the bakes the daemon keeps (so it is there again after a reload or a restart).
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, call, ApiError, type Schemas } from '../api/client';
import { h, replace } from '../lib/dom';
import {
  convergenceSets,
  logLogSlope,
  parseSppList,
  type BakeForConvergence,
  type ConvergenceSet,
} from '../lib/convergence';
import { fixed, sci } from '../lib/format';

type Bake = Schemas['bake'];
type BakeRequest = Schemas['bake_request'];

const SAMPLERS = ['mixforge-cmj', 'kensler-cmj', 'sobol-owen', 'pcg', 'independent'] as const;
const COLOURS: Record<string, string> = {
  'mixforge-cmj': '#2f6fdf',
  'kensler-cmj': '#b06ad9',
  'sobol-owen': '#2a9d5b',
  pcg: '#d9534f',
  independent: '#7a7a7a',
};
const MAX_SPP = 65536;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function chart(set: ConvergenceSet): HTMLElement {
  const el = h('div', {
    class: 'chart convergence-chart',
    role: 'img',
    'aria-label': `RMSE over samples per texel against bake ${set.reference}`,
  });
  const names = [...set.samplers.keys()].sort((a, b) => SAMPLERS.indexOf(a as never) - SAMPLERS.indexOf(b as never));
  const xs = [...new Set(names.flatMap((n) => set.samplers.get(n)!.map(([x]) => x)))].sort((a, b) => a - b);
  const data: uPlot.AlignedData = [
    xs,
    ...names.map((n) => {
      const m = new Map(set.samplers.get(n));
      return xs.map((x) => m.get(x) ?? null);
    }),
  ];
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const fg = dark ? '#ccc' : '#333',
    grid = dark ? '#333' : '#e6e6e6';
  const axis = { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid } };
  const opts: uPlot.Options = {
    width: 800,
    height: 300,
    // x: the sample counts measured, not the decades around them.
    scales: { x: { time: false, distr: 3, range: (_u, lo, hi) => [lo / 1.25, hi * 1.25] }, y: { distr: 3 } },
    axes: [
      { ...axis, label: 'samples per texel (log)' },
      {
        ...axis,
        label: 'RMSE against the reference (log)',
        size: 70,
        values: (_u, v) => v.map((x) => (x == null ? '' : sci(x, 0))),
      },
    ],
    series: [
      { label: 'spp' },
      ...names.map((n) => ({
        label: n,
        stroke: COLOURS[n] ?? '#888',
        width: 1.5,
        spanGaps: true,
        points: { show: true, size: 6 },
        value: (_u: uPlot, v: number | null) => (v == null ? '–' : sci(v, 3)),
      })),
    ],
  };
  // Drawn once the element is in the page, then resized with it (phone to desktop).
  let plot: uPlot | null = null;
  const observer = new ResizeObserver(() => {
    if (!el.isConnected) {
      observer.disconnect();
      plot?.destroy();
      return;
    }
    const w = Math.max(240, el.clientWidth);
    if (!plot) plot = new uPlot({ ...opts, width: w }, data, el);
    else if (Math.abs(plot.width - w) > 1) plot.setSize({ width: w, height: 300 });
  });
  observer.observe(el);
  return el;
}

function slopes(set: ConvergenceSet): HTMLElement {
  const names = [...set.samplers.keys()];
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'convergence-table' },
      h('caption', { class: 'small muted' }, 'slope: least-squares fit of log RMSE over log spp (white noise: −0.5)'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['sampler', 'points', 'lowest RMSE', 'slope'].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        null,
        names.map((n) => {
          const pts = set.samplers.get(n)!;
          const s = logLogSlope(pts);
          const last = pts[pts.length - 1];
          return h(
            'tr',
            { dataset: { sampler: n } },
            h('td', null, n),
            h('td', { class: 'num' }, String(pts.length)),
            h('td', { class: 'num mono' }, `${sci(last[1], 3)} @ ${last[0]}`),
            h('td', { class: 'num mono', 'data-slope': s ?? '' }, s == null ? '–' : fixed(s, 3)),
          );
        }),
      ),
    ),
  );
}

// refresh: called after each bake of a benchmark (the page reloads its list and calls update).
export function convergencePanel(refresh: () => void): { el: HTMLElement; update(bakes: Bake[]): void } {
  const view = h('div', { class: 'convergence-view' });
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const error = h('div', { role: 'alert' });
  const field = (id: string, label: string, input: HTMLElement, hint = '') =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      input,
      hint ? h('span', { class: 'muted small' }, hint) : null,
    );
  const boxes = SAMPLERS.map((s) =>
    h('input', { type: 'checkbox', value: s, checked: true, 'aria-label': `benchmark ${s}` }),
  );
  const spps = h('input', { id: 'conv-spp', type: 'text', value: '16, 64, 256', size: 14 });
  const refSpp = h('input', { id: 'conv-ref', type: 'number', min: 1, value: '4096', size: 6 });
  const texel = h('input', { id: 'conv-texel', type: 'text', inputmode: 'decimal', value: '0.1', size: 5 });
  const bounces = h('input', { id: 'conv-bounces', type: 'number', min: 0, max: 16, value: '2', size: 3 });
  const run = h('button', { type: 'submit' }, 'Run benchmark');
  const stop = h(
    'button',
    {
      type: 'button',
      hidden: true,
      onclick: () => {
        stopping = true;
      },
    },
    'Stop',
  );
  let stopping = false;

  const form = h(
    'form',
    {
      class: 'bake-form',
      'aria-label': 'Convergence benchmark',
      novalidate: true,
      onsubmit: (e: Event) => {
        e.preventDefault();
        void start();
      },
    },
    h(
      'fieldset',
      { class: 'row' },
      h('legend', null, 'samplers'),
      SAMPLERS.map((s, i) => h('label', null, boxes[i], ` ${s}`)),
    ),
    field('conv-spp', 'samples per texel', spps, 'a list, e.g. 16, 64, 256'),
    field('conv-ref', 'reference spp', refSpp, 'sobol-owen, another seed'),
    field('conv-texel', 'texel size', texel),
    field('conv-bounces', 'bounces', bounces),
    error,
    h('div', { class: 'row' }, run, stop),
  );

  async function bakeAndWait(req: BakeRequest, label: string): Promise<Bake> {
    let b: Bake;
    for (;;) {
      try {
        b = await call(() => api.POST('/api/v1/bakes', { body: req }));
        break;
      } catch (e) {
        // The daemon's queue is shared with other users' bakes: wait for room.
        if (e instanceof ApiError && e.status === 429) {
          status.textContent = `${label}: the bake queue is full, waiting…`;
          await sleep(3000);
          continue;
        }
        throw e;
      }
    }
    for (;;) {
      if (stopping) {
        await call(() => api.DELETE('/api/v1/bakes/{id}', { params: { path: { id: b.id } } })).catch(() => undefined);
        throw new Error('stopped');
      }
      const j = await call(() => api.GET('/api/v1/bakes/{id}', { params: { path: { id: b.id } } }));
      const p = j.progress;
      status.textContent = `${label}: ${j.state}${p && p.texels ? `, pass ${p.pass + 1} of ${p.passes}, ${Math.round((100 * p.texels_done) / p.texels)} %` : ''}`;
      if (j.state === 'done') return j;
      if (j.state === 'failed' || j.state === 'cancelled')
        throw new Error(`bake ${j.id} ${j.state}${j.error ? `: ${j.error}` : ''}`);
      await sleep(500);
    }
  }

  async function start(): Promise<void> {
    replace(error);
    const samplers = boxes.filter((b) => b.checked).map((b) => b.value as BakeRequest['sampler']);
    const list = parseSppList(spps.value, MAX_SPP);
    const ref = Number(refSpp.value),
      tex = texel.value.trim() ? Number(texel.value) : undefined,
      bnc = Number(bounces.value);
    const bad = !samplers.length
      ? 'choose at least one sampler'
      : typeof list === 'string'
        ? `samples per texel: ${list}`
        : !Number.isInteger(ref) || ref < 1
          ? 'reference spp: a whole number of at least 1'
          : tex !== undefined && !(tex > 0)
            ? 'texel size: a positive number'
            : null;
    if (bad || typeof list === 'string') {
      replace(error, h('p', { class: 'error' }, bad ?? ''));
      return;
    }
    stopping = false;
    run.disabled = true;
    stop.hidden = false;
    const base = { scene: 'cornell' as const, bounces: bnc, ...(tex !== undefined ? { texel: tex } : {}) };
    const total = 1 + samplers.length * list.length;
    try {
      const reference = await bakeAndWait(
        { ...base, sampler: 'sobol-owen', spp: ref, seed: 99 },
        `bake 1 of ${total}: reference, ${ref} spp`,
      );
      let n = 1;
      for (const s of samplers)
        for (const spp of list) {
          await bakeAndWait(
            { ...base, sampler: s, spp, seed: 1, reference: reference.id },
            `bake ${++n} of ${total}: ${s}, ${spp} spp`,
          );
          refresh();
        }
      status.textContent = `Benchmark done: ${total} bakes against reference ${reference.id}.`;
    } catch (e) {
      if (e instanceof ApiError)
        replace(
          error,
          h('p', { class: 'error' }, `${e.problem.field ? e.problem.field + ': ' : ''}${e.problem.detail}`),
        );
      else if ((e as Error).message === 'stopped') status.textContent = 'Benchmark stopped.';
      else replace(error, h('p', { class: 'error' }, (e as Error).message));
    } finally {
      run.disabled = false;
      stop.hidden = true;
      refresh();
    }
  }
  function update(bakes: Bake[]): void {
    const sets = convergenceSets(bakes as unknown as BakeForConvergence[]);
    if (!sets.length) {
      replace(
        view,
        h(
          'p',
          { class: 'muted' },
          'No bakes measured against a reference yet: run a benchmark below, or start bakes with a "reference" through the API.',
        ),
      );
      return;
    }
    const set = sets[0];
    const key = JSON.stringify([set.reference, [...set.samplers.entries()]]);
    if (view.dataset.key === key) return; // unchanged: keep the chart (and its cursor)
    view.dataset.key = key;
    view.dataset.reference = set.reference;
    replace(
      view,
      h(
        'p',
        { class: 'small muted' },
        `Against reference bake `,
        h('a', { href: `#/bakes/${set.reference}`, class: 'mono' }, set.reference),
        sets.length > 1 ? ` (newest of ${sets.length} benchmarks)` : '',
      ),
      chart(set),
      slopes(set),
    );
  }

  const el = h(
    'section',
    { class: 'convergence', 'aria-label': 'Convergence' },
    h('h2', null, 'Convergence'),
    view,
    h('h3', null, 'Run a convergence benchmark (Cornell box)'),
    form,
    status,
  );
  return { el, update };
}
