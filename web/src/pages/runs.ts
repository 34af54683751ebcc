// Runs: every run with its state and figures, the start-run form, controls, and an overlay
// of the best-chi2 histories of the runs selected for comparison.
import { api, call, ApiError, type RunSummary } from '../api/client';
import { age, percent, rate, sci, fixed, int } from '../lib/format';
import { h, replace, spinner } from '../lib/dom';
import { GrowingSeries } from '../lib/decimate';
import { Chi2Chart, REFERENCE_LINES } from '../ui/chart';
import { controls, stateBadge } from '../ui/controls';
import { RunForm } from '../ui/runform';
import type { Page } from './page';

const REFRESH_MS = 3000;

export function runsPage(root: HTMLElement): Page {
  const selected = new Set<string>();
  const message = h('div', { class: 'message', role: 'alert' });
  const tbody = h('tbody');
  const table = h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'runs' },
      h('caption', { class: 'sr-only' }, 'Runs'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          [
            'compare',
            'run',
            'state',
            'width',
            'steps',
            'best exact chi2',
            'bias',
            'tournaments/s',
            'early rejects',
            'tournaments',
            'age',
            'actions',
          ].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      tbody,
    ),
  );
  const status = h('p', { class: 'muted small', role: 'status' });
  const compareBox = h('section', { class: 'compare', 'aria-label': 'Compare runs' });
  const compareButton = h(
    'button',
    { type: 'button', disabled: true, onclick: () => void compare() },
    'Compare selected',
  );
  const form = new RunForm((run) => {
    location.hash = `#/runs/${run.id}`;
  });

  replace(
    root,
    h('h1', null, 'Runs'),
    message,
    h('div', { class: 'row' }, compareButton, status),
    table,
    compareBox,
    form.el,
  );
  replace(tbody, h('tr', null, h('td', { colspan: 12 }, spinner())));

  let runs: RunSummary[] = [];
  let timer = 0;
  let chart: Chi2Chart | null = null;
  let disposed = false;

  const showError = (e: ApiError) =>
    replace(message, h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));

  function row(r: RunSummary): HTMLElement {
    const c = r.counters;
    const best = r.best;
    const tps = c.elapsed_s > 0 ? c.tournaments / c.elapsed_s : null;
    const rejectRate = c.scored > 0 ? c.early_rejects / c.scored : null;
    const check = h('input', {
      type: 'checkbox',
      'aria-label': `compare ${r.name || r.id}`,
      checked: selected.has(r.id),
      onchange: (e: Event) => {
        if ((e.target as HTMLInputElement).checked) selected.add(r.id);
        else selected.delete(r.id);
        compareButton.disabled = selected.size === 0;
      },
    });
    return h(
      'tr',
      { dataset: { run: r.id } },
      h('td', null, check),
      h('td', null, h('a', { href: `#/runs/${r.id}` }, r.name || r.id), h('div', { class: 'muted small mono' }, r.id)),
      h('td', null, stateBadge(r.state), r.error ? h('div', { class: 'error small' }, r.error) : null),
      h('td', { class: 'num' }, r.config.width),
      h('td', { class: 'num' }, r.config.max_steps),
      h(
        'td',
        { class: 'num mono', title: best ? best.short : '' },
        best
          ? best.chi2_exact !== null
            ? sci(best.chi2_exact)
            : h('span', { title: 'sampled estimate, no exact score yet' }, `~${sci(best.chi2)}`)
          : '–',
      ),
      h('td', { class: 'num' }, best ? fixed(best.bias, 3) : '–'),
      h('td', { class: 'num', title: 'average over the run time' }, rate(tps)),
      h('td', { class: 'num' }, percent(rejectRate)),
      h('td', { class: 'num' }, int(c.tournaments)),
      h('td', { class: 'num', title: new Date(r.created_at * 1000).toISOString() }, age(r.created_at)),
      h(
        'td',
        null,
        controls(r.id, r.state, () => void load(), showError),
      ),
    );
  }

  async function load(): Promise<void> {
    clearTimeout(timer);
    try {
      const list = await call(() => api.GET('/api/v1/runs', { params: { query: { limit: 1000 } } }));
      if (disposed) return;
      runs = list.items;
      replace(message);
      // Keep focus on a control inside the table across the refresh.
      const active = document.activeElement;
      const inTable = active && tbody.contains(active) ? (active.getAttribute('aria-label') ?? '') : '';
      replace(
        tbody,
        runs.length
          ? runs.map(row)
          : h('tr', null, h('td', { colspan: 12, class: 'muted' }, 'No runs yet: start one below.')),
      );
      if (inTable) (tbody.querySelector(`[aria-label="${CSS.escape(inTable)}"]`) as HTMLElement | null)?.focus();
      status.textContent = `${list.total} run${list.total === 1 ? '' : 's'} · updated ${new Date().toLocaleTimeString()}`;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      showError(e);
    }
    if (!disposed) timer = window.setTimeout(() => void load(), REFRESH_MS);
  }

  async function compare(): Promise<void> {
    const ids = [...selected];
    replace(compareBox, h('h2', null, 'Best chi2 of selected runs'), spinner());
    try {
      const histories = await Promise.all(
        ids.map((id) =>
          call(() => api.GET('/api/v1/runs/{id}/history', { params: { path: { id }, query: { max_points: 4000 } } })),
        ),
      );
      const series = histories.map((hist, i) => {
        const s = new GrowingSeries();
        for (const p of hist.items) s.push(p.elapsed_s, p.best_chi2);
        const run = runs.find((r) => r.id === ids[i]);
        return { label: run?.name || ids[i], data: s };
      });
      const widths = new Set(ids.map((id) => runs.find((r) => r.id === id)?.config.width));
      const refs = widths.size === 1 ? (REFERENCE_LINES[[...widths][0] ?? 0] ?? []) : [];
      chart?.dispose();
      chart = new Chi2Chart(series, 'run time (s)', refs);
      replace(
        compareBox,
        h('h2', null, 'Best chi2 of selected runs'),
        h(
          'p',
          { class: 'muted small' },
          'Drag to zoom, double-click to reset. Dashed: exact chi2 of published functions.',
        ),
        chart.el,
      );
      chart.refresh();
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      replace(compareBox, h('p', { class: 'error' }, `Could not load histories: ${e.message}`));
    }
  }

  void load();
  return {
    dispose() {
      disposed = true;
      clearTimeout(timer);
      chart?.dispose();
    },
  };
}
