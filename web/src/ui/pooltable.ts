// The pool as a virtualised table: only the rows in view exist in the DOM (a fixed set of
// row elements is reused), pages of 500 are fetched on demand with the daemon doing the
// sorting and filtering, so 100,000 rows scroll like 100.
import { api, call, ApiError, type ScoredFunction } from '../api/client';
import { h, replace } from '../lib/dom';
import { int, samples, sci } from '../lib/format';

const ROW = 28; // px, fixed row height
const PAGE = 500; // rows per request
const OVERSCAN = 8;

export type Order = 'chi2' | 'born' | 'steps';
export interface PoolQuery {
  order: Order;
  desc: boolean;
  min_steps?: number;
  max_steps?: number;
  kinds?: string;
  uses?: string;
  max_chi2?: number;
  exact?: boolean;
}

const COLUMNS: { key: string; label: string; order?: Order; cls?: string }[] = [
  { key: 'rank', label: '#', cls: 'num' },
  { key: 'chi2', label: 'chi2', order: 'chi2', cls: 'num' },
  { key: 'err', label: '± stderr', cls: 'num' },
  { key: 'samples', label: 'samples', cls: 'num' },
  { key: 'steps', label: 'steps', order: 'steps', cls: 'num' },
  { key: 'short', label: 'function' },
  { key: 'born', label: 'born', order: 'born', cls: 'num' },
];

export class PoolTable {
  readonly el: HTMLElement;
  private viewport: HTMLElement;
  private spacer: HTMLElement;
  private rowsBox: HTMLElement;
  private info: HTMLElement;
  private header: HTMLElement;
  private rows: HTMLElement[] = [];
  private pages = new Map<number, ScoredFunction[]>();
  private stale = new Map<number, ScoredFunction[]>(); // shown until a refresh arrives
  private loading = new Set<number>();
  private total = 0;
  private generation = 0;
  private frame = 0;
  private wanted = new Set<number>();
  private fetchTimer = 0;
  query: PoolQuery = { order: 'chi2', desc: false };

  constructor(private readonly runId: string) {
    this.info = h('span', { class: 'muted small', role: 'status' });
    this.header = h('div', { class: 'vt-row vt-head', role: 'row' });
    this.spacer = h('div', { class: 'vt-spacer' });
    this.rowsBox = h('div', { class: 'vt-rows', role: 'rowgroup' });
    this.viewport = h(
      'div',
      { class: 'vt-viewport', tabindex: 0, role: 'grid', 'aria-label': 'Pool', 'aria-rowcount': 0 },
      this.spacer,
      this.rowsBox,
    );
    this.viewport.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(this.viewport);
    this.el = h(
      'div',
      { class: 'pool' },
      this.filters(),
      h('div', { class: 'vt' }, this.header, this.viewport),
      this.info,
    );
    this.renderHeader();
  }

  private filters(): HTMLElement {
    const num = (name: string, label: string, ph = '') =>
      h('label', null, label, h('input', { name, type: 'text', inputmode: 'decimal', size: 6, placeholder: ph }));
    const form = h(
      'form',
      {
        class: 'filters row',
        'aria-label': 'Filter the pool',
        onsubmit: (e: Event) => {
          e.preventDefault();
          this.applyFilters(form);
        },
      },
      num('min_steps', 'steps ≥ '),
      num('max_steps', 'steps ≤ '),
      h('label', null, 'only kinds ', h('input', { name: 'kinds', type: 'text', size: 16, placeholder: 'xsr,mul' })),
      h('label', null, 'uses ', h('input', { name: 'uses', type: 'text', size: 6, placeholder: 'rot' })),
      num('max_chi2', 'chi2 ≤ ', '1e-4'),
      h('label', null, h('input', { name: 'exact', type: 'checkbox' }), ' exact only'),
      h('button', { type: 'submit' }, 'Filter'),
      h('button', { type: 'button', onclick: () => this.reload() }, 'Refresh'),
    );
    return form;
  }

  private applyFilters(form: HTMLFormElement): void {
    const v = (n: string) => (form.elements.namedItem(n) as HTMLInputElement).value.trim();
    const n = (s: string) => (s === '' ? undefined : Number(s));
    this.query = {
      order: this.query.order,
      desc: this.query.desc,
      min_steps: n(v('min_steps')),
      max_steps: n(v('max_steps')),
      kinds: v('kinds') || undefined,
      uses: v('uses') || undefined,
      max_chi2: n(v('max_chi2')),
      exact: (form.elements.namedItem('exact') as HTMLInputElement).checked || undefined,
    };
    this.reload();
  }

  private renderHeader(): void {
    replace(
      this.header,
      COLUMNS.map((c) => {
        if (!c.order) return h('div', { class: `vt-cell ${c.cls ?? ''}`, role: 'columnheader' }, c.label);
        const active = this.query.order === c.order;
        return h(
          'div',
          {
            class: `vt-cell ${c.cls ?? ''}`,
            role: 'columnheader',
            'aria-sort': active ? (this.query.desc ? 'descending' : 'ascending') : 'none',
          },
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              onclick: () => {
                if (active) this.query.desc = !this.query.desc;
                else {
                  this.query.order = c.order!;
                  this.query.desc = false;
                }
                this.renderHeader();
                this.reload();
              },
            },
            c.label,
            active ? (this.query.desc ? ' ▼' : ' ▲') : '',
          ),
        );
      }),
    );
  }

  // A new query: drop everything.
  reload(): void {
    this.generation++;
    this.pages.clear();
    this.stale.clear();
    this.loading.clear();
    void this.fetchPage(0);
  }

  // The pool changed (a live run): refetch what is in view, showing the old rows meanwhile.
  refresh(): void {
    this.generation++;
    for (const [k, v] of this.pages) this.stale.set(k, v);
    this.pages.clear();
    this.loading.clear();
    void this.fetchPage(0);
    this.schedule();
  }

  // The current query as the API's query parameters.
  params(offset: number, limit: number) {
    const q = this.query;
    return {
      limit,
      offset,
      order: q.order,
      desc: q.desc || undefined,
      min_steps: q.min_steps,
      max_steps: q.max_steps,
      kinds: q.kinds,
      uses: q.uses,
      max_chi2: q.max_chi2,
      exact: q.exact,
    };
  }

  private async fetchPage(p: number): Promise<void> {
    if (this.pages.has(p) || this.loading.has(p)) return;
    const gen = this.generation;
    this.loading.add(p);
    if (p === 0) this.info.textContent = 'Loading…';
    try {
      const page = await call(() =>
        api.GET('/api/v1/runs/{id}/pool', { params: { path: { id: this.runId }, query: this.params(p * PAGE, PAGE) } }),
      );
      if (gen !== this.generation) return;
      this.pages.set(p, page.items);
      this.stale.delete(p);
      if (page.total !== this.total) {
        this.total = page.total;
        this.spacer.style.height = `${this.total * ROW}px`;
        this.viewport.setAttribute('aria-rowcount', String(this.total));
      }
      this.info.textContent = `${int(this.total)} functions match · sorted by ${this.query.order}${this.query.desc ? ' (descending)' : ''}`;
      this.schedule();
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (gen === this.generation)
        replace(this.info, h('span', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));
    } finally {
      this.loading.delete(p);
    }
  }

  private schedule(): void {
    if (!this.frame)
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.render();
      });
  }

  private render(): void {
    const top = this.viewport.scrollTop;
    const height = this.viewport.clientHeight || 480;
    const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(this.total, Math.ceil((top + height) / ROW) + OVERSCAN);
    const count = Math.max(0, last - first);
    while (this.rows.length < count) {
      const r = h(
        'div',
        { class: 'vt-row', role: 'row' },
        COLUMNS.map((c) => h('div', { class: `vt-cell ${c.cls ?? ''}`, role: 'gridcell' })),
      );
      this.rows.push(r);
      this.rowsBox.appendChild(r);
    }
    this.rowsBox.style.transform = `translateY(${first * ROW}px)`;
    for (let k = 0; k < this.rows.length; k++) {
      const row = this.rows[k];
      if (k >= count) {
        row.hidden = true;
        continue;
      }
      row.hidden = false;
      const i = first + k;
      const page = this.pages.get(Math.floor(i / PAGE)) ?? this.stale.get(Math.floor(i / PAGE));
      if (!this.pages.has(Math.floor(i / PAGE))) this.want(Math.floor(i / PAGE));
      this.fill(row, i, page?.[i % PAGE]);
    }
  }

  // Pages are fetched once scrolling pauses (80 ms), and only those still in view, so a
  // fast scroll through 100,000 rows does not queue hundreds of requests.
  private want(p: number): void {
    this.wanted.add(p);
    clearTimeout(this.fetchTimer);
    this.fetchTimer = window.setTimeout(() => {
      const top = this.viewport.scrollTop,
        height = this.viewport.clientHeight || 480;
      const first = Math.floor(Math.max(0, Math.floor(top / ROW) - OVERSCAN) / PAGE);
      const last = Math.floor((Math.ceil((top + height) / ROW) + OVERSCAN) / PAGE);
      for (const w of this.wanted) if (w >= first && w <= last) void this.fetchPage(w);
      this.wanted.clear();
    }, 80);
  }

  private fill(row: HTMLElement, i: number, f: ScoredFunction | undefined): void {
    const cells = row.children as HTMLCollectionOf<HTMLElement>;
    row.setAttribute('aria-rowindex', String(i + 1));
    if (row.dataset.key === (f ? `${i}:${f.id}` : `${i}:`)) return;
    row.dataset.key = f ? `${i}:${f.id}` : `${i}:`;
    cells[0].textContent = String(i + 1);
    if (!f) {
      for (let c = 1; c < cells.length; c++) cells[c].textContent = c === 5 ? '…' : '';
      return;
    }
    cells[1].textContent = sci(f.chi2_exact ?? f.chi2);
    cells[2].textContent = f.exact ? 'exact' : sci(f.chi2_stderr, 1);
    cells[3].textContent = f.exact ? 'all' : samples(f.samples);
    cells[4].textContent = String(f.steps);
    replace(cells[5], h('a', { href: `#/functions/${f.id}`, class: 'mono', title: f.text }, f.short));
    cells[6].textContent = int(f.born);
  }

  get rowCount(): number {
    return this.total;
  }

  dispose(): void {
    cancelAnimationFrame(this.frame);
    clearTimeout(this.fetchTimer);
    this.generation++;
  }
}
