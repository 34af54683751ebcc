// Pause / resume / stop / delete of a run, each behind a confirmation, offered per state
// (the daemon's state machine: pause only a running run, resume a paused, stopped or
// finished one, stop a created, running or paused one; delete always).
import { api, call, ApiError, type RunState, type RunDetail } from '../api/client';
import { confirmDialog, h } from '../lib/dom';

export type Action = 'pause' | 'resume' | 'stop' | 'delete';

export function actionsFor(state: RunState): Action[] {
  const a: Action[] = [];
  if (state === 'running') a.push('pause');
  if (state === 'paused' || state === 'stopped' || state === 'finished') a.push('resume');
  if (state === 'created' || state === 'running' || state === 'paused') a.push('stop');
  a.push('delete');
  return a;
}

const QUESTIONS: Record<Action, string> = {
  pause: 'Pause run %s? It keeps its pool and can be resumed.',
  resume: 'Resume run %s?',
  stop: 'Stop run %s? It writes a final checkpoint; it can be resumed later.',
  delete: 'Delete run %s with its pool and history? Its hall-of-fame entries stay. This cannot be undone.',
};

export async function runAction(id: string, action: Action): Promise<RunDetail | null> {
  if (!(await confirmDialog(QUESTIONS[action].replace('%s', id), action[0].toUpperCase() + action.slice(1))))
    return null;
  const path = { params: { path: { id } } };
  // POST bodies are required ({} here: CSRF policy). `as never` fits both the document that
  // declares that body and the older one without it; drop it once every document has it.
  const empty = {} as never;
  switch (action) {
    case 'pause':
      return call(() => api.POST('/api/v1/runs/{id}/pause', { ...path, body: empty }));
    case 'resume':
      return call(() => api.POST('/api/v1/runs/{id}/resume', { ...path, body: {} }));
    case 'stop':
      return call(() => api.POST('/api/v1/runs/{id}/stop', { ...path, body: empty }));
    case 'delete':
      await call(() => api.DELETE('/api/v1/runs/{id}', path));
      return null;
  }
}

export function controls(
  id: string,
  state: RunState,
  after: (action: Action, run: RunDetail | null) => void,
  onError: (e: ApiError) => void,
): HTMLElement {
  return h(
    'span',
    { class: 'controls' },
    actionsFor(state).map((a) =>
      h(
        'button',
        {
          type: 'button',
          class: a === 'delete' ? 'danger small' : 'small',
          'aria-label': `${a} run ${id}`,
          onclick: async (e: Event) => {
            const b = e.currentTarget as HTMLButtonElement;
            b.disabled = true;
            try {
              const r = await runAction(id, a);
              if (r || a === 'delete') after(a, r);
            } catch (err) {
              if (err instanceof ApiError) onError(err);
              else throw err;
            } finally {
              b.disabled = false;
            }
          },
        },
        a,
      ),
    ),
  );
}

export function stateBadge(state: string): HTMLElement {
  return h('span', { class: `badge state-${state}` }, state);
}
