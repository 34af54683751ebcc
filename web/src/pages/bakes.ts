// Bakes: start a lightmap bake (scene, sampler, spp, bounces, mixers from a run, stored
// functions or the shipped family), the list of bakes, and one bake live: progress over
// SSE, then the lightmap and preview images (click to zoom) and the report's figures; and
// the convergence chart of a benchmark (ui/convergence.ts).
import { api, call, ApiError, type Schemas } from '../api/client';
import { h, replace, spinner, confirmDialog } from '../lib/dom';
import { age, fixed, int, rate, sci } from '../lib/format';
import { stateBadge } from '../ui/controls';
import { convergencePanel } from '../ui/convergence';
import { uploadedScene } from '../lib/scene_upload';
import type { Page } from './page';
import { backHitsText, bakeRequest, mixerSamplers } from '../lib/bake_form';

type Bake = Schemas['bake'];

const REFRESH_MS = 3000;
const SAMPLERS = ['mixforge-cmj', 'kensler-cmj', 'sobol-owen', 'pcg', 'independent'] as const;

function problemText(e: ApiError): string {
  const p = e.problem;
  return `${p.field ? `${p.field}: ` : ''}${p.detail}`;
}

function progressText(b: Bake): string {
  const p = b.progress;
  if (b.state === 'queued') return 'waiting for a bake slot';
  if (!p) return b.phase ?? '';
  const pass = p.pass === 0 ? 'direct light' : `bounce ${p.pass} of ${p.passes - 1}`;
  const f = p.texels ? p.texels_done / p.texels : 0;
  return `${b.phase ?? ''} · ${pass} · ${(f * 100).toFixed(0)} % · ${rate(p.seconds > 0 ? p.rays / p.seconds / 1e6 : null, 'Mrays/s')}`;
}

export function bakesPage(root: HTMLElement): Page {
  const message = h('div', { class: 'message', role: 'alert' });
  const tbody = h('tbody');
  const status = h('p', { class: 'muted small', role: 'status' });
  const field = (id: string, label: string, input: HTMLElement, hint = '') =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      input,
      hint ? h('span', { class: 'muted small' }, hint) : null,
    );
  const sampler = h(
    'select',
    { id: 'bake-sampler' },
    SAMPLERS.map((s) => h('option', { value: s }, s)),
  );
  const spp = h('input', { id: 'bake-spp', type: 'number', min: 1, value: '64', size: 6 });
  const bounces = h('input', { id: 'bake-bounces', type: 'number', min: 0, max: 16, value: '2', size: 3 });
  const texel = h('input', { id: 'bake-texel', type: 'text', inputmode: 'decimal', placeholder: 'auto', size: 6 });
  const twoSided = h('input', { id: 'bake-two-sided', type: 'checkbox' }) as HTMLInputElement;
  const source = h(
    'select',
    { id: 'bake-source' },
    h('option', { value: 'default' }, 'the shipped family'),
    h('option', { value: 'run' }, "a run's best family"),
    h('option', { value: 'functions' }, 'function ids'),
  );
  const mixers = h('input', {
    id: 'bake-mixers',
    type: 'text',
    size: 40,
    placeholder: 'run id, or 1-4 function ids',
    class: 'mono',
  });
  const sceneKind = h(
    'select',
    { id: 'bake-scene' },
    h('option', { value: 'cornell' }, 'the Cornell box (built in)'),
    h('option', { value: 'upload' }, 'a Quake .map or an OBJ (+ .mtl) file'),
  );
  const sceneFiles = h('input', {
    id: 'bake-scene-files',
    type: 'file',
    accept: '.map,.obj,.mtl',
    multiple: true,
    hidden: true,
  });
  sceneKind.addEventListener('change', () => {
    sceneFiles.hidden = sceneKind.value !== 'upload';
  });
  const formError = h('div', { id: 'bake-form-error', role: 'alert' });
  const start = h('button', { type: 'submit' }, 'Start bake');
  // novalidate: the daemon checks every field and names the one it refuses (shown below).
  const form = h(
    'form',
    {
      class: 'bake-form',
      'aria-label': 'Start a bake',
      novalidate: true,
      onsubmit: (e: Event) => {
        e.preventDefault();
        void submit();
      },
    },
    h('h2', null, 'Start a bake'),
    field('bake-scene', 'scene', h('span', null, sceneKind, ' ', sceneFiles)),
    field('bake-sampler', 'sampler', sampler),
    field('bake-spp', 'samples per texel', spp),
    field('bake-bounces', 'bounces', bounces),
    field('bake-texel', 'texel size', texel, 'world units; empty: scene diagonal / 200'),
    field(
      'bake-two-sided',
      'two-sided',
      twoSided,
      'both sides of every face get texels (a leaf, a sign); default: only .mtl materials with mixforge_two_sided 1',
    ),
    field('bake-source', 'mixers', source),
    field('bake-mixers', 'from', mixers),
    formError,
    start,
  );

  const inputs: Record<string, HTMLElement> = {
    '/spp': spp,
    '/bounces': bounces,
    '/texel': texel,
    '/sampler': sampler,
    '/mixers': mixers,
    '/scene': sceneFiles,
    '/two_sided': twoSided,
  };
  // Which samplers take mixers: the API's schema says (lib/bake_form.ts), read once.
  let samplersWithMixers: Promise<string[] | null> | null = null;
  const mixerRule = (): Promise<string[] | null> =>
    (samplersWithMixers ??= call(() => api.GET('/api/v1/openapi.json')).then(mixerSamplers, () => {
      samplersWithMixers = null; // not known this time: the daemon decides; asked again next time
      return null;
    }));
  async function submit(): Promise<void> {
    replace(formError);
    for (const el of Object.values(inputs)) el.removeAttribute('aria-invalid');
    const body = bakeRequest(
      {
        sampler: sampler.value,
        spp: spp.value,
        bounces: bounces.value,
        texel: texel.value,
        mixers: mixers.value,
        source: source.value,
        twoSided: twoSided.checked,
      },
      await mixerRule(),
    );
    if (sceneKind.value === 'upload') {
      const files = await Promise.all(
        [...(sceneFiles.files ?? [])].map(async (f) => ({ name: f.name, text: await f.text() })),
      );
      const scene = uploadedScene(files);
      if (typeof scene === 'string') {
        replace(formError, h('p', { class: 'error', 'data-field': '/scene' }, `scene: ${scene}`));
        sceneFiles.setAttribute('aria-invalid', 'true');
        sceneFiles.focus();
        return;
      }
      body.scene = scene;
    }
    start.disabled = true;
    try {
      const b = await call(() => api.POST('/api/v1/bakes', { body }));
      location.hash = `#/bakes/${b.id}`;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      replace(formError, h('p', { class: 'error', 'data-field': e.problem.field ?? '' }, problemText(e)));
      const key = Object.keys(inputs).find((k) => (e.problem.field ?? '').startsWith(k));
      if (key) {
        inputs[key]?.setAttribute('aria-invalid', 'true');
        inputs[key]?.focus();
      }
    } finally {
      start.disabled = false;
    }
  }

  let timer = 0;
  let disposed = false;
  const convergence = convergencePanel(() => void load());
  async function load(): Promise<void> {
    clearTimeout(timer);
    try {
      const list = await call(() => api.GET('/api/v1/bakes', { params: { query: { limit: 100 } } }));
      if (disposed) return;
      replace(message);
      replace(
        tbody,
        list.items.length
          ? list.items.map((b) =>
              h(
                'tr',
                { dataset: { bake: b.id } },
                h('td', null, h('a', { href: `#/bakes/${b.id}`, class: 'mono' }, b.id)),
                h('td', null, stateBadge(b.state)),
                h('td', null, String((b.request as Record<string, unknown>)['sampler'] ?? '')),
                h('td', { class: 'num' }, String((b.request as Record<string, unknown>)['spp'] ?? '')),
                h('td', { class: 'num mono' }, b.report?.rmse != null ? sci(b.report.rmse, 3) : ''),
                h('td', { class: 'num' }, b.report ? rate(b.report.rays_per_s / 1e6, 'Mrays/s') : progressText(b)),
                h('td', { class: 'num', title: new Date(b.created_at * 1000).toISOString() }, age(b.created_at)),
              ),
            )
          : h('tr', null, h('td', { colspan: 7, class: 'muted' }, 'No bakes yet: start one below.')),
      );
      status.textContent = `${list.total} bake${list.total === 1 ? '' : 's'} · updated ${new Date().toLocaleTimeString()}`;
      convergence.update(list.items);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      replace(message, h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));
    }
    if (!disposed) timer = window.setTimeout(() => void load(), REFRESH_MS);
  }

  replace(
    root,
    h('h1', null, 'Bakes'),
    h(
      'p',
      { class: 'muted small' },
      'Lightmaps baked with correlated multi-jittered sampling whose permutations come from mixforge mixers, or a baseline sampler; one bake at a time, on all cores but one.',
    ),
    message,
    status,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'bakes' },
        h('caption', { class: 'sr-only' }, 'Bakes'),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['bake', 'state', 'sampler', 'spp', 'RMSE', 'speed / progress', 'age'].map((c) =>
              h('th', { scope: 'col' }, c),
            ),
          ),
        ),
        tbody,
      ),
    ),
    form,
    convergence.el,
  );
  replace(tbody, h('tr', null, h('td', { colspan: 7 }, spinner())));
  void load();
  return {
    dispose() {
      disposed = true;
      clearTimeout(timer);
    },
  };
}

// One zoomable image: click (or Enter) toggles between fitted and natural size.
function zoomable(src: string, alt: string): HTMLElement {
  const img = h('img', { src, alt, class: 'bake-image', loading: 'lazy' });
  const button = h('button', { type: 'button', class: 'zoom', 'aria-pressed': 'false', title: 'Zoom' }, img);
  button.addEventListener('click', () => {
    const zoomed = button.classList.toggle('zoomed');
    button.setAttribute('aria-pressed', String(zoomed));
  });
  return h('figure', null, button, h('figcaption', { class: 'muted small' }, alt));
}

export function bakePage(root: HTMLElement, id: string): Page {
  const head = h('div', { class: 'row' });
  const progress = h('progress', { max: 1, value: 0, 'aria-label': 'bake progress' });
  const progressLine = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const body = h('div');
  const message = h('div', { role: 'alert' });
  let es: EventSource | null = null;
  let disposed = false;

  function show(b: Bake): void {
    const cancel = h(
      'button',
      { type: 'button', onclick: () => void remove(b) },
      b.state === 'queued' || b.state === 'running' ? 'Cancel' : 'Delete',
    );
    replace(head, stateBadge(b.state), h('span', { class: 'mono' }, b.id), cancel);
    const p = b.progress;
    progress.value = b.state === 'done' ? 1 : p && p.texels ? (p.pass + p.texels_done / p.texels) / p.passes : 0;
    progressLine.textContent =
      b.state === 'running' || b.state === 'queued' ? progressText(b) : b.state === 'failed' ? '' : b.state;
    if (b.state === 'failed') replace(body, h('p', { class: 'error' }, b.error ?? 'failed'));
    if (b.state !== 'done' || !b.report) return;
    const r = b.report;
    const item = (k: string, v: string) => h('div', null, h('dt', null, k), h('dd', null, v));
    const rgb = (v: number[]) => v.map((x) => fixed(x, 4)).join(' ');
    replace(
      body,
      h(
        'dl',
        { class: 'stats' },
        item('texels', int(r.texels)),
        item('rays', int(r.rays)),
        item('speed', rate(r.rays_per_s / 1e6, 'Mrays/s')),
        item('back end', String(r.backend)),
        item('sampler', `${r.sampler}, ${r.spp} spp, ${r.bounces} bounces`),
        item('radiance mean', rgb(r.radiance.mean)),
        r.back_hits ? item('hit from behind', backHitsText(r.back_hits)) : null,
        item('total', `${fixed(r.phases.total_s, 2)} s`),
      ),
      r.mixers.length
        ? h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'mixers' },
              h('caption', null, `mixers (${r.mixer_origin})`),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['lane', 'function', 'program', 'chi2'].map((c) => h('th', { scope: 'col' }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                r.mixers.map((m) =>
                  h(
                    'tr',
                    null,
                    h('td', null, m.lane),
                    h('td', null, h('a', { href: `#/functions/${m.id}`, class: 'mono' }, m.id)),
                    h('td', { class: 'mono small' }, m.program),
                    h('td', { class: 'num mono' }, `${m.exact ? '' : '~'}${sci(m.chi2)}`),
                  ),
                ),
              ),
            ),
          )
        : null,
      h(
        'div',
        { class: 'bake-images' },
        zoomable(`/api/v1/bakes/${b.id}/lightmap.png`, 'lightmap (tone-mapped; the atlas of every surface)'),
        zoomable(`/api/v1/bakes/${b.id}/preview.png`, 'preview: the scene lit by the lightmap'),
      ),
      h(
        'p',
        { class: 'small' },
        'Download: ',
        h('a', { href: `/api/v1/bakes/${b.id}/lightmap.exr`, download: `${b.id}.exr` }, 'lightmap.exr'),
        ' · ',
        h('a', { href: `/api/v1/bakes/${b.id}/report.json`, download: `${b.id}.json` }, 'report.json'),
      ),
    );
  }

  async function remove(b: Bake): Promise<void> {
    const running = b.state === 'queued' || b.state === 'running';
    if (
      !(await confirmDialog(
        running ? `Cancel bake ${b.id}? It is removed with its files.` : `Delete bake ${b.id} and its files?`,
        running ? 'Cancel bake' : 'Delete',
      ))
    )
      return;
    try {
      await call(() => api.DELETE('/api/v1/bakes/{id}', { params: { path: { id: b.id } } }));
      location.hash = '#/bakes';
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      replace(message, h('p', { class: 'error' }, e.message));
    }
  }

  // Live: the stream's first event is the job, then progress and state events; it closes
  // when the bake ends (the job then comes with the last state event).
  function follow(): void {
    es = new EventSource(`/api/v1/bakes/${encodeURIComponent(id)}/events`);
    let current: Bake | null = null;
    es.addEventListener('bake', (m) => {
      current = JSON.parse((m as MessageEvent).data) as Bake;
      show(current);
    });
    es.addEventListener('progress', (m) => {
      const d = JSON.parse((m as MessageEvent).data) as { progress: Bake['progress'] };
      if (current) {
        current = { ...current, state: 'running', progress: d.progress };
        show(current);
      }
    });
    es.addEventListener('state', (m) => {
      const d = JSON.parse((m as MessageEvent).data) as { state: Bake['state']; phase?: string; job?: Bake };
      if (d.job) {
        current = d.job;
        es?.close();
      } else if (current) current = { ...current, state: d.state, phase: (d.phase ?? null) as Bake['phase'] };
      if (current) show(current);
    });
    es.onerror = () => {
      // Closed by the daemon after the end, or lost: read the job once to show where it is.
      es?.close();
      if (!disposed)
        void call(() => api.GET('/api/v1/bakes/{id}', { params: { path: { id } } }))
          .then(show)
          .catch((e: unknown) => {
            if (e instanceof ApiError)
              replace(message, h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));
          });
    };
  }

  replace(
    root,
    h('p', null, h('a', { href: '#/bakes' }, '← all bakes')),
    h('h1', null, 'Bake'),
    head,
    message,
    progress,
    progressLine,
    body,
  );
  follow();
  return {
    dispose() {
      disposed = true;
      es?.close();
    },
  };
}
