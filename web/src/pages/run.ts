// Run: live best-chi2 curve over the event stream, rates, leaders, hall of fame, the pool
// as a virtualised table, downloads.
import { api, call, ApiError, type RunDetail, type Progress, type ScoredFunction } from '../api/client';
import { GrowingSeries } from '../lib/decimate';
import { islandRows, migrationText, ISLAND_COLUMNS, ISLAND_NUMBER_COLUMNS } from '../lib/islands';
import { qualitySummary } from '../lib/quality';
import { RunStream } from '../lib/events';
import { csv, duration, fixed, int, percent, rate, samples, sci } from '../lib/format';
import { climbText } from '../lib/polish';
import { download, h, replace, spinner } from '../lib/dom';
import { Chi2Chart, REFERENCE_LINES } from '../ui/chart';
import { controls, stateBadge } from '../ui/controls';
import { FrontPanel } from '../ui/front';
import { PoolTable } from '../ui/pooltable';
import { notesPanel } from '../ui/notes';
import type { Page } from './page';

type XAxis = 'elapsed' | 'tournaments';
const X_LABEL: Record<XAxis, string> = { elapsed: 'run time (s)', tournaments: 'tournaments' };

export async function runPage(root: HTMLElement, id: string): Promise<Page> {
  replace(root, spinner());
  let run: RunDetail;
  try {
    run = await call(() => api.GET('/api/v1/runs/{id}', { params: { path: { id } } }));
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    replace(
      root,
      h('h1', null, 'Run ', id),
      h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`),
      h('a', { href: '#/' }, 'All runs'),
    );
    return {};
  }

  const byTime = new GrowingSeries(),
    byTournaments = new GrowingSeries();
  let xAxis: XAxis = 'elapsed';
  const chart = new Chi2Chart(
    [{ label: 'best chi2', data: byTime }],
    X_LABEL[xAxis],
    REFERENCE_LINES[run.config.width] ?? [],
  );
  const message = h('div', { class: 'message', role: 'alert' });
  const title = h('h1');
  const stats = h('dl', { class: 'stats' });
  const live = h('span', { class: 'live muted small', role: 'status', 'aria-live': 'polite' });
  const leaders = h('ol', { class: 'leaders' });
  const fame = h('div', { class: 'table-wrap' });
  const pool = new PoolTable(id);
  const front = new FrontPanel(id);
  let points = 0;

  const showError = (e: ApiError) =>
    replace(message, h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));

  function header(): void {
    replace(
      title,
      run.name || run.id,
      ' ',
      stateBadge(run.state),
      ' ',
      controls(
        run.id,
        run.state,
        (action, r) => {
          if (action === 'delete') {
            location.hash = '#/';
            return;
          }
          if (r) {
            run = r;
            header();
            renderStats(r.progress);
          }
        },
        showError,
      ),
    );
  }

  function renderStats(p: Progress): void {
    const c = p.counters;
    const best = p.best;
    const item = (k: string, v: string, t?: string) => h('div', null, h('dt', null, k), h('dd', { title: t }, v));
    replace(
      stats,
      item(
        'best exact chi2',
        best?.chi2_exact != null ? sci(best.chi2_exact) : best ? `~${sci(best.chi2)} (sampled)` : '–',
      ),
      item('bias', best ? fixed(best.bias, 4) : '–'),
      item('tournaments', int(c.tournaments)),
      item('tournaments/s', rate(p.tournaments_per_s)),
      item('scored/s', rate(p.scored_per_s)),
      item('early rejects', percent(p.early_reject_rate), `${int(c.early_rejects)} of ${int(c.scored)} scored`),
      item('samples now', samples(p.current_samples)),
      item('exact scores', int(c.exact_scored)),
      item(
        'local search',
        `${int(c.local_improvements ?? 0)} moves`,
        `${int(c.local_neighbours ?? 0)} neighbours of the best compared on common samples; ${int(c.local_improvements ?? 0)} confirmed better exactly`,
      ),
      item('run time', duration(c.elapsed_s)),
      item('width / steps', `${run.config.width} / ≤ ${run.config.max_steps}`),
      item('pool', int(p.pool_size)),
      // Seed programs' exact climbs (seed_programs; mixforge polish).
      (p.climbs ?? []).map((cl, i) =>
        h('div', { class: 'climb' }, h('dt', null, `climb ${i + 1}`), h('dd', { class: 'mono small' }, climbText(cl))),
      ),
    );
  }

  function addPoint(elapsed: number, tournaments: number, chi2: number): void {
    if (!(chi2 > 0)) return;
    const before = byTime.length;
    byTime.push(elapsed, chi2);
    byTournaments.push(tournaments, chi2);
    if (byTime.length > before) points++;
  }

  function progressPoint(p: Progress): void {
    if (p.best) addPoint(p.counters.elapsed_s, p.counters.tournaments, p.best.chi2_exact ?? p.best.chi2);
  }

  async function loadHistory(): Promise<void> {
    const since = byTime.length ? byTime.lastX() : undefined;
    const hist = await call(() =>
      api.GET('/api/v1/runs/{id}/history', { params: { path: { id }, query: since !== undefined ? { since } : {} } }),
    );
    for (const p of hist.items) addPoint(p.elapsed_s, p.tournaments, p.best_chi2);
    chart.refresh();
  }

  function fnLink(f: ScoredFunction): HTMLElement {
    return h('a', { href: `#/functions/${f.id}`, class: 'mono' }, f.short);
  }

  async function loadLeaders(): Promise<void> {
    try {
      const [best, hof] = await Promise.all([
        call(() => api.GET('/api/v1/runs/{id}/best', { params: { path: { id }, query: { limit: 8 } } })),
        call(() => api.GET('/api/v1/hall-of-fame', { params: { query: { run_id: id, limit: 50 } } })),
      ]);
      replace(
        leaders,
        best.items.length
          ? best.items.map((f) =>
              h(
                'li',
                null,
                h('span', { class: 'num mono' }, f.chi2_exact != null ? sci(f.chi2_exact) : `~${sci(f.chi2)}`),
                ' ',
                h(
                  'span',
                  { class: 'muted small' },
                  f.exact || f.chi2_exact != null ? 'exact' : `N=${samples(f.samples)}`,
                ),
                ' ',
                fnLink(f),
              ),
            )
          : h('li', { class: 'muted' }, 'none yet'),
      );
      replace(
        fame,
        hof.items.length
          ? h(
              'table',
              null,
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['exact chi2', 'bias', 'found at', 'tournaments', 'quality', 'function'].map((c) =>
                    h('th', { scope: 'col' }, c),
                  ),
                ),
              ),
              h(
                'tbody',
                null,
                hof.items.map((f) =>
                  h(
                    'tr',
                    null,
                    h('td', { class: 'num mono' }, sci(f.chi2_exact ?? f.chi2)),
                    h('td', { class: 'num' }, fixed(f.bias, 4)),
                    h('td', { class: 'num' }, duration(f.elapsed_s)),
                    h('td', { class: 'num' }, int(f.tournaments)),
                    h('td', { class: 'small quality-summary' }, qualitySummary(f.quality)),
                    h('td', null, fnLink(f)),
                  ),
                ),
              ),
            )
          : h('p', { class: 'muted' }, 'No exact best yet.'),
      );
    } catch (e) {
      if (e instanceof ApiError) showError(e);
      else throw e;
    }
  }

  async function downloadPool(kind: 'csv' | 'json'): Promise<void> {
    const all: ScoredFunction[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = await call(() =>
        api.GET('/api/v1/runs/{id}/pool', { params: { path: { id }, query: pool.params(offset, 1000) } }),
      );
      all.push(...page.items);
      if (page.items.length < 1000 || all.length >= page.total) break;
    }
    if (kind === 'json') {
      download(`${id}-pool.json`, JSON.stringify(all, null, 1), 'application/json');
      return;
    }
    download(
      `${id}-pool.csv`,
      csv(
        ['id', 'chi2', 'chi2_stderr', 'samples', 'exact', 'chi2_exact', 'bias', 'steps', 'width', 'born', 'text'],
        all.map((f) => [
          f.id,
          f.chi2,
          f.chi2_stderr,
          f.samples,
          f.exact,
          f.chi2_exact,
          f.bias,
          f.steps,
          f.width,
          f.born,
          f.text,
        ]),
      ),
      'text/csv',
    );
  }

  function downloadHistory(kind: 'csv' | 'json'): void {
    const rows: [number, number, number][] = [];
    for (let i = 0; i < byTime.length; i++) rows.push([byTime.x[i], byTournaments.x[i], byTime.y[i]]);
    if (kind === 'json')
      download(
        `${id}-history.json`,
        JSON.stringify(rows.map(([e, t, c]) => ({ elapsed_s: e, tournaments: t, best_chi2: c }))),
        'application/json',
      );
    else download(`${id}-history.csv`, csv(['elapsed_s', 'tournaments', 'best_chi2'], rows), 'text/csv');
  }

  const axisSelect = h(
    'select',
    {
      'aria-label': 'x axis',
      onchange: (e: Event) => {
        xAxis = (e.target as HTMLSelectElement).value as XAxis;
        chart.setSeries([{ label: 'best chi2', data: xAxis === 'elapsed' ? byTime : byTournaments }]);
        chart.setXLabel(X_LABEL[xAxis]);
        chart.refresh();
      },
    },
    h('option', { value: 'elapsed' }, 'run time'),
    h('option', { value: 'tournaments' }, 'tournaments'),
  );
  const dl = (label: string, f: () => unknown) =>
    h(
      'button',
      {
        type: 'button',
        class: 'small',
        onclick: () => {
          Promise.resolve(f()).catch((e) => {
            if (e instanceof ApiError) showError(e);
            else throw e;
          });
        },
      },
      label,
    );

  header();
  replace(
    root,
    h('nav', { class: 'crumbs small' }, h('a', { href: '#/' }, 'Runs'), ' / ', h('span', { class: 'mono' }, id)),
    title,
    message,
    stats,
    h(
      'section',
      { 'aria-label': 'Best chi2 over time' },
      h(
        'div',
        { class: 'row' },
        h('h2', null, 'Best chi2'),
        h('label', null, 'x axis ', axisSelect),
        live,
        dl('history CSV', () => downloadHistory('csv')),
        dl('history JSON', () => downloadHistory('json')),
      ),
      h(
        'p',
        { class: 'muted small' },
        'Live from the event stream. Drag to zoom, double-click to reset. Dashed lines: exact chi2 of published functions.',
      ),
      chart.el,
    ),
    h(
      'div',
      { class: 'two' },
      h('section', null, h('h2', null, 'Leaders'), leaders),
      h('section', null, h('h2', null, 'Hall of fame'), fame),
    ),
    front.el,
    islandsSection(run),
    notesPanel('run', id),
    h(
      'section',
      { 'aria-label': 'Pool' },
      h(
        'div',
        { class: 'row' },
        h('h2', null, 'Pool'),
        dl('pool CSV', () => downloadPool('csv')),
        dl('pool JSON', () => downloadPool('json')),
      ),
      pool.el,
    ),
  );
  renderStats(run.progress);
  pool.reload();
  void loadLeaders();
  void front.load();
  try {
    await loadHistory();
  } catch (e) {
    if (e instanceof ApiError) showError(e);
    else throw e;
  }
  progressPoint(run.progress);
  chart.refresh();

  let lastLeaders = 0,
    lastPool = performance.now();
  const stream = new RunStream(`/api/v1/runs/${encodeURIComponent(id)}/events`, {
    onEvent(type, ev) {
      if (type === 'deleted') return; // the run is gone: nothing left to reload
      if (ev.progress) {
        progressPoint(ev.progress);
        renderStats(ev.progress);
      }
      if (type === 'state' && ev.state) {
        run = { ...run, state: ev.state };
        header();
      }
      if (type === 'new_best' || type === 'state' || performance.now() - lastLeaders > 10000) {
        lastLeaders = performance.now();
        void loadLeaders();
        void front.load();
      }
      // The pool changes while the run runs: refresh the rows in view every 5 s.
      if (ev.progress?.state === 'running' && performance.now() - lastPool > 5000) {
        lastPool = performance.now();
        pool.refresh();
      }
      chart.refresh();
      live.dataset.points = String(points);
      live.dataset.events = String(Number(live.dataset.events ?? 0) + 1);
    },
    onStatus(s) {
      live.textContent =
        s === 'open'
          ? '● live'
          : s === 'connecting'
            ? 'connecting…'
            : s === 'ended'
              ? 'run deleted'
              : 'connection lost, reconnecting…';
      live.dataset.status = s;
    },
    onReconnect() {
      // Whatever happened while the daemon was away: state, the history tail, leaders.
      void call(() => api.GET('/api/v1/runs/{id}', { params: { path: { id } } }))
        .then((r) => {
          run = r;
          header();
          renderStats(r.progress);
        })
        .catch(() => {});
      void loadHistory().catch(() => {});
      void loadLeaders();
      pool.reload();
    },
  });

  return {
    dispose() {
      stream.close();
      chart.dispose();
      pool.dispose();
    },
  };
}

// An island run (mpirun ... evolve --islands): each island as rank 0 last stored it.
function islandsSection(run: RunDetail): HTMLElement | null {
  const rows = islandRows(run.islands);
  if (!rows.length) return null;
  return h(
    'section',
    { 'aria-label': 'Islands' },
    h('h2', null, 'Islands'),
    h(
      'p',
      { class: 'muted small' },
      `One MPI rank each, on the host named. ${migrationText(run.config.migration)} As of the last report.`,
    ),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        null,
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ISLAND_COLUMNS.map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          null,
          rows.map((r) =>
            h(
              'tr',
              null,
              r.map((cell, i) => h('td', { class: ISLAND_NUMBER_COLUMNS.has(i) ? 'num' : '' }, cell)),
            ),
          ),
        ),
      ),
    ),
  );
}
