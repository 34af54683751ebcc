// Evaluate: paste a program in any accepted syntax and see its scores, matrix and errors
// (line:column) as you type; requests are debounced and the one in flight is cancelled
// when the text changes.
import { api, call, ApiError } from '../api/client';
import { h, replace } from '../lib/dom';
import { fixed, samples, sci } from '../lib/format';
import { heatmap } from '../ui/heatmap';
import type { Page } from './page';

const EXAMPLE = 'x ^= x >> 8;\nx *= 0x88b5;\nx ^= x >> 7;\nx *= 0xdb2d;\nx ^= x >> 9;';

export function evaluatePage(root: HTMLElement): Page {
  const text = h(
    'textarea',
    { id: 'eval-program', rows: 8, cols: 60, spellcheck: false, class: 'mono', 'aria-describedby': 'eval-status' },
    EXAMPLE,
  );
  // The example is a 16-bit function: scored exactly (all inputs) at once.
  const width = h('input', {
    id: 'eval-width',
    type: 'text',
    inputmode: 'numeric',
    size: 4,
    placeholder: 'auto',
    value: '16',
  });
  const status = h('div', { id: 'eval-status', role: 'status', 'aria-live': 'polite', class: 'eval-status' });
  const out = h('div');
  let timer = 0;
  let inflight: AbortController | null = null;

  async function evaluate(): Promise<void> {
    inflight?.abort();
    const ctl = new AbortController();
    inflight = ctl;
    const w = width.value.trim();
    status.textContent = 'Scoring…';
    status.dataset.state = 'busy';
    try {
      const r = await call(() =>
        api.POST('/api/v1/evaluate', {
          body: { program: text.value, matrix: true, ...(w ? { width: Number(w) } : {}) },
          signal: ctl.signal,
        }),
      );
      if (ctl.signal.aborted) return;
      status.textContent = `${r.score.exact ? 'exact' : `sampled, N=${samples(r.score.samples)}`} · ${fixed(r.elapsed_s * 1000, 0)} ms`;
      status.dataset.state = 'ok';
      const item = (k: string, v: string) => h('div', null, h('dt', null, k), h('dd', null, v));
      replace(
        out,
        h(
          'dl',
          { class: 'stats' },
          item(
            'chi2',
            r.score.exact ? sci(r.score.chi2, 6) : `${sci(r.score.chi2_corrected)} ± ${sci(r.score.chi2_stderr, 1)}`,
          ),
          item('bias', fixed(r.score.bias, 5)),
          item('width', String(r.program.width)),
          item('steps', String(r.program.steps)),
          item('canonical', r.program.short),
        ),
        r.matrix ? heatmap(r.matrix) : null,
      );
    } catch (e) {
      if (ctl.signal.aborted) return;
      if (!(e instanceof ApiError)) throw e;
      const p = e.problem;
      status.dataset.state = 'error';
      replace(
        status,
        h(
          'span',
          { class: 'error' },
          p.line !== undefined ? `${p.line}:${p.column ?? 0}: ${p.detail}` : `${p.title}: ${p.detail}`,
        ),
      );
      replace(out);
    }
  }
  const schedule = () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => void evaluate(), 400);
  };
  text.addEventListener('input', schedule);
  width.addEventListener('input', schedule);

  replace(
    root,
    h('h1', null, 'Evaluate a program'),
    h(
      'p',
      { class: 'muted small' },
      "C-like statements, the compact form (w32:xsr16,mul7feb352d,...), or the write-up's JavaScript form. Scored as you type: exact up to 20 bits, sampled above.",
    ),
    h('div', { class: 'row' }, h('label', { for: 'eval-program' }, 'Program')),
    text,
    h('div', { class: 'row' }, h('label', { for: 'eval-width' }, 'width '), width),
    status,
    out,
  );
  void evaluate();
  return {
    dispose() {
      clearTimeout(timer);
      inflight?.abort();
    },
  };
}
