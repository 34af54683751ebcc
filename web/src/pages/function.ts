// Function: text, JSON form, exact scores, the avalanche matrix, the inverse, export for
// every target (and the vec4 family builder), and a live WebGL2 preview.
import { api, call, ApiError, type FunctionDetail } from '../api/client';
import { compileApply } from '../lib/apply';
import { copyText, download, h, replace, spinner } from '../lib/dom';
import { fixed, int, samples, sci } from '../lib/format';
import { depthText } from '../lib/front';
import { polishRunBody } from '../lib/polish';
import { heatmap } from '../ui/heatmap';
import { preview } from '../ui/preview';
import { notesPanel } from '../ui/notes';
import type { Page } from './page';

const TARGETS = ['glsl', 'hlsl', 'wgsl', 'msl', 'cuda', 'cpp'] as const;
type Target = (typeof TARGETS)[number];
const EXT: Record<Target, string> = { glsl: 'glsl', hlsl: 'hlsl', wgsl: 'wgsl', msl: 'metal', cuda: 'cuh', cpp: 'hpp' };

function codeBlock(label: string, text: string, file?: string): HTMLElement {
  const copy = h(
    'button',
    { type: 'button', class: 'small', onclick: (e: Event) => void copyText(text, e.currentTarget as HTMLElement) },
    'Copy',
  );
  const save = file
    ? h('button', { type: 'button', class: 'small', onclick: () => download(file, text) }, 'Download')
    : null;
  return h(
    'div',
    { class: 'code' },
    h('div', { class: 'row' }, h('strong', null, label), copy, save),
    h('pre', { tabindex: 0, 'aria-label': label }, h('code', null, text)),
  );
}

// The RRC depth (docs/scoring-and-quality.md): log2 of the counter-stream length at which
// the first of the 4n RRC streams fails. Measured on request (seconds to minutes: the
// daemon queues it), then cached with the quality report.
function rrcItem(f: FunctionDetail): HTMLElement {
  const value = h('dd', null);
  const measure = async (button: HTMLButtonElement) => {
    button.disabled = true;
    replace(value, 'measuring…');
    try {
      const q = await call(() =>
        api.GET('/api/v1/functions/{id}/quality', {
          params: { path: { id: f.id }, query: { size: 'quick', rrc: true } },
        }),
      );
      const r = q.rrc;
      if (!r) throw new Error('the report has no RRC part');
      const failure = r.first_failure
        ? ` (first failure: ${r.first_failure.test} on ${r.first_failure.transform}, p = ${r.first_failure.p.toExponential(2)})`
        : ` (passed the cap 2^${r.cap_log2})`;
      replace(value, `${r.passed_cap ? '>' : ''}${r.depth_log2}${failure}`);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      replace(value, h('span', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));
      button.disabled = false;
    }
  };
  const known = depthText(f.objective);
  if (known !== '–') replace(value, `${known} (from its run's objective)`);
  else if (f.width < 8) replace(value, 'needs 8 to 64 bits');
  else
    replace(
      value,
      h(
        'button',
        { type: 'button', class: 'small', onclick: (e: Event) => void measure(e.currentTarget as HTMLButtonElement) },
        'Measure',
      ),
    );
  return h('div', null, h('dt', null, 'RRC depth'), value);
}

// Polish: a run from this function as its seed program (seed_programs), which climbs from it
// by exact scores (mixforge polish); the dashboard then follows that run.
function polishPanel(f: FunctionDetail): HTMLElement {
  const status = h('span', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const start = async (button: HTMLButtonElement) => {
    button.disabled = true;
    replace(status, 'starting…');
    try {
      const run = await call(() => api.POST('/api/v1/runs', { body: polishRunBody(f), params: { query: {} } }));
      location.hash = `#/runs/${run.id}`;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      replace(status, h('span', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));
      button.disabled = false;
    }
  };
  return h(
    'div',
    { class: 'row' },
    f.width > 32
      ? h('span', { class: 'muted small' }, 'Polishing scores exactly: widths up to 32 bits.')
      : h(
          'button',
          {
            type: 'button',
            class: 'small',
            title:
              'Start a run from this function: an exact local search (every shift ±1 and bit flip of a constant, then pairs of them) until no neighbour is lower',
            onclick: (e: Event) => void start(e.currentTarget as HTMLButtonElement),
          },
          'Polish (exact climb)',
        ),
    status,
  );
}

export async function functionPage(root: HTMLElement, id: string): Promise<Page> {
  replace(root, spinner());
  let f: FunctionDetail;
  try {
    f = await call(() => api.GET('/api/v1/functions/{id}', { params: { path: { id } } }));
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    replace(
      root,
      h('h1', null, 'Function ', id),
      h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`),
    );
    return {};
  }
  const message = h('div', { class: 'message', role: 'alert' });
  const item = (k: string, v: string) => h('div', null, h('dt', null, k), h('dd', null, v));
  const scores = h(
    'dl',
    { class: 'stats' },
    item('exact chi2', f.chi2_exact != null ? sci(f.chi2_exact, 6) : 'not scored exactly'),
    f.chi2_exact == null
      ? item('chi2 (sampled)', `${sci(f.chi2)} ± ${sci(f.chi2_stderr, 1)} (N=${samples(f.samples)})`)
      : null,
    item('bias', fixed(f.bias, 5)),
    item('width', String(f.width)),
    item('steps', String(f.steps)),
    item('id', f.id),
    f.matrix
      ? item('matrix', f.matrix.exact ? 'exact (all inputs)' : `sampled, ${int(f.matrix.samples)} inputs`)
      : null,
    rrcItem(f),
  );

  // Export panel.
  const exportOut = h('div', { class: 'export-out' });
  const opts = h(
    'form',
    {
      class: 'row export-opts',
      'aria-label': 'Export options',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void doExport();
      },
    },
    h(
      'label',
      null,
      'target ',
      h(
        'select',
        { name: 'target' },
        TARGETS.map((t) => h('option', { value: t }, t)),
      ),
    ),
    h('label', null, 'name ', h('input', { name: 'name', type: 'text', size: 14, placeholder: 'default' })),
    h('label', null, h('input', { name: 'inverse', type: 'checkbox' }), ' inverse'),
    h(
      'label',
      null,
      'range ',
      h(
        'select',
        { name: 'range' },
        h('option', { value: '' }, 'none'),
        h('option', { value: 'jitter' }, 'jitter'),
        h('option', { value: 'fraction' }, 'fraction'),
      ),
    ),
    h(
      'label',
      null,
      'constants ',
      h(
        'select',
        { name: 'constants' },
        h('option', { value: 'hex' }, 'hex'),
        h('option', { value: 'decimal' }, 'decimal'),
      ),
    ),
    h('button', { type: 'submit' }, 'Export'),
  );
  const val = (n: string) => (opts.elements.namedItem(n) as HTMLInputElement | HTMLSelectElement).value;
  async function doExport(): Promise<void> {
    const target = val('target') as Target;
    replace(exportOut, spinner('Exporting…'));
    try {
      const code = await call(() =>
        api.GET('/api/v1/functions/{id}/export', {
          params: {
            path: { id },
            query: {
              target,
              name: val('name') || undefined,
              inverse: (opts.elements.namedItem('inverse') as HTMLInputElement).checked || undefined,
              range: (val('range') || undefined) as 'jitter' | 'fraction' | undefined,
              constants: val('constants') as 'hex' | 'decimal',
            },
          },
          parseAs: 'text',
        }),
      );
      replace(
        exportOut,
        codeBlock(`${target} code`, String(code), `${val('name') || 'mix_' + id.slice(0, 8)}.${EXT[target]}`),
      );
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      replace(exportOut, h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));
    }
  }

  // vec4 family builder: this function plus up to three others with the same step kinds.
  const familyOut = h('div');
  const family = h(
    'form',
    {
      class: 'row',
      'aria-label': 'vec4 family',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void doFamily();
      },
    },
    h(
      'label',
      null,
      'lanes 2-4 (function ids) ',
      h('input', { name: 'ids', type: 'text', size: 40, placeholder: 'id, id, id' }),
    ),
    h(
      'label',
      null,
      'target ',
      h(
        'select',
        { name: 'ftarget' },
        TARGETS.map((t) => h('option', { value: t }, t)),
      ),
    ),
    h('label', null, h('input', { name: 'seeded', type: 'checkbox' }), ' seeded'),
    h('button', { type: 'submit' }, 'Build vec4'),
  );
  async function doFamily(): Promise<void> {
    const ids = [id, ...(family.elements.namedItem('ids') as HTMLInputElement).value.split(/[\s,]+/).filter(Boolean)];
    const target = (family.elements.namedItem('ftarget') as HTMLSelectElement).value as Target;
    replace(familyOut, spinner('Exporting…'));
    try {
      const r = await call(() =>
        api.POST('/api/v1/export', {
          body: {
            target,
            programs: ids.map((x) => ({ function_id: x })),
            vec4: true,
            seeded: (family.elements.namedItem('seeded') as HTMLInputElement).checked,
          },
        }),
      );
      replace(familyOut, codeBlock(`vec4 ${target}`, r.code ?? '', `${r.name ?? 'mix4'}.${EXT[target]}`));
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      replace(familyOut, h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));
    }
  }

  // Live preview from the GLSL export under a fixed name.
  const previewBox = h('div', null, spinner('Fetching GLSL…'));
  async function loadPreview(): Promise<void> {
    if (f.width > 32) {
      replace(
        previewBox,
        h('p', { class: 'muted' }, 'The preview covers widths up to 32 bits (GLSL ES has no 64-bit integers).'),
      );
      return;
    }
    try {
      const code = await call(() =>
        api.GET('/api/v1/functions/{id}/export', {
          params: { path: { id }, query: { target: 'glsl', name: 'mf_preview' } },
          parseAs: 'text',
        }),
      );
      let reference: ((x: number) => number) | null = null;
      try {
        reference = compileApply(f.program);
      } catch {
        reference = null;
      }
      replace(previewBox, preview(String(code), 'mf_preview', f.width, reference));
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      replace(previewBox, h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));
    }
  }

  replace(
    root,
    h(
      'nav',
      { class: 'crumbs small' },
      h('a', { href: '#/' }, 'Runs'),
      ' / function ',
      h('span', { class: 'mono' }, id),
    ),
    h('h1', { class: 'mono fn-title' }, f.short),
    message,
    scores,
    polishPanel(f),
    h(
      'div',
      { class: 'two' },
      h(
        'section',
        null,
        h('h2', null, 'Function'),
        codeBlock('text', f.text),
        h(
          'details',
          null,
          h('summary', null, 'JSON form'),
          codeBlock('JSON', JSON.stringify(f.program, null, 2), `${id}.json`),
        ),
        h('h2', null, 'Inverse'),
        codeBlock('inverse text', f.inverse.text),
      ),
      h(
        'section',
        null,
        h('h2', null, 'Avalanche matrix'),
        f.matrix ? heatmap(f.matrix.rows) : h('p', { class: 'muted' }, 'No matrix for this function.'),
      ),
    ),
    h('section', null, h('h2', null, 'Export'), opts, exportOut, h('h3', null, 'vec4 family'), family, familyOut),
    h('section', null, h('h2', null, 'Live preview (WebGL2)'), previewBox),
    notesPanel('function', id),
  );
  void doExport();
  void loadPreview();
  return {};
}
