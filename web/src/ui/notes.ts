// A Markdown note on a run or a function, kept by the daemon (GET/PUT .../note): shown
// rendered, edited in a textarea with a live preview, saved with the version it started
// from so a save over another tab's newer save is a visible conflict, never a silent loss.
import { api, call, ApiError, type Schemas } from '../api/client';
import { h, replace } from '../lib/dom';
import { age } from '../lib/format';
import { MAX_NOTE_CHARS, markdownRenderer, noteLength } from '../lib/markdown';

type Note = Schemas['note'];
export type NoteSubject = 'run' | 'function';

function load(subject: NoteSubject, id: string): Promise<Note> {
  return subject === 'run'
    ? call(() => api.GET('/api/v1/runs/{id}/note', { params: { path: { id } } }))
    : call(() => api.GET('/api/v1/functions/{id}/note', { params: { path: { id } } }));
}

function save(subject: NoteSubject, id: string, text: string, baseVersion?: number): Promise<Note> {
  const body = baseVersion === undefined ? { text } : { text, base_version: baseVersion };
  return subject === 'run'
    ? call(() => api.PUT('/api/v1/runs/{id}/note', { params: { path: { id } }, body }))
    : call(() => api.PUT('/api/v1/functions/{id}/note', { params: { path: { id } }, body }));
}

export function notesPanel(subject: NoteSubject, id: string): HTMLElement {
  const view = h('div', { class: 'note-view', 'aria-live': 'polite' });
  const meta = h('span', { class: 'muted small note-meta' });
  const message = h('div', { class: 'note-message', role: 'alert' });
  // Disabled until the note has arrived: a click before that would have nothing to edit.
  const editButton = h(
    'button',
    { type: 'button', class: 'small', disabled: true, onclick: () => edit() },
    'Edit note',
  );
  const box = h(
    'section',
    { class: 'notes', 'aria-label': `Notes on this ${subject}`, dataset: { subject } },
    h('div', { class: 'row' }, h('h2', null, 'Notes'), meta, editButton),
    message,
    view,
  );
  let note: Note | null = null;

  async function show(n: Note): Promise<void> {
    note = n;
    box.dataset.version = String(n.version);
    const recent = n.updated_at != null && Date.now() / 1000 - n.updated_at < 10;
    meta.textContent = n.version === 0 ? '' : `version ${n.version}, saved ${recent ? 'just now' : age(n.updated_at)}`;
    if (!n.text.trim()) {
      replace(
        view,
        h(
          'p',
          { class: 'muted' },
          `No note on this ${subject} yet. Markdown is welcome: what you tried, why this one, what to do next.`,
        ),
      );
      return;
    }
    const render = await markdownRenderer();
    const div = h('div', { class: 'markdown' });
    div.innerHTML = render(n.text); // micromark escapes raw HTML and drops unsafe links
    replace(view, div);
  }

  function problem(e: unknown): void {
    if (!(e instanceof ApiError)) throw e;
    replace(message, h('p', { class: 'error' }, `${e.problem.title}: ${e.problem.detail}`));
  }

  function edit(): void {
    if (!note) return;
    const base = note.version;
    replace(message);
    editButton.hidden = true;
    const area = h('textarea', {
      class: 'note-text mono',
      rows: 10,
      'aria-label': `Note on this ${subject} (Markdown)`,
      spellcheck: true,
    });
    area.value = note.text;
    const count = h('span', { class: 'small muted note-count', 'aria-live': 'polite' });
    const previewBox = h('div', { class: 'markdown note-preview', 'aria-label': 'Preview' });
    const saveButton = h('button', { type: 'submit' }, 'Save');
    let timer = 0;
    const update = (): void => {
      const n = noteLength(area.value);
      count.textContent = `${n.toLocaleString('en')} / ${MAX_NOTE_CHARS.toLocaleString('en')} characters`;
      count.classList.toggle('error', n > MAX_NOTE_CHARS);
      saveButton.disabled = n > MAX_NOTE_CHARS;
      clearTimeout(timer);
      timer = window.setTimeout(() => {
        void markdownRenderer().then((render) => {
          previewBox.innerHTML = render(area.value);
        });
      }, 150);
    };
    const close = (): void => {
      editButton.hidden = false;
      void show(note!);
    };
    const form = h(
      'form',
      {
        class: 'note-form',
        'aria-label': 'Edit note',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void submit(base);
        },
        onkeydown: (e: KeyboardEvent) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void submit(base);
          }
          if (e.key === 'Escape') {
            e.preventDefault();
            close();
          }
        },
      },
      h('div', { class: 'two note-edit' }, area, previewBox),
      h(
        'div',
        { class: 'row' },
        saveButton,
        h('button', { type: 'button', onclick: close }, 'Cancel'),
        count,
        h('span', { class: 'small muted' }, 'Ctrl+Enter saves, Esc cancels'),
      ),
    );
    async function submit(from: number | undefined): Promise<void> {
      saveButton.disabled = true;
      try {
        const saved = await save(subject, id, area.value, from);
        replace(message);
        editButton.hidden = false;
        await show(saved);
        editButton.focus();
      } catch (e) {
        saveButton.disabled = false;
        if (e instanceof ApiError && e.status === 409) {
          // Someone saved since this edit began: keep both texts in front of the user.
          const theirs = h(
            'button',
            {
              type: 'button',
              class: 'small',
              onclick: () => {
                void reload();
              },
            },
            'Discard mine, load theirs',
          );
          const mine = h(
            'button',
            {
              type: 'button',
              class: 'small',
              onclick: () => {
                void submit(undefined);
              },
            },
            'Save mine over theirs',
          );
          replace(
            message,
            h(
              'p',
              { class: 'error note-conflict' },
              'This note was saved elsewhere while you edited it. ',
              theirs,
              ' ',
              mine,
            ),
          );
          return;
        }
        problem(e);
      }
    }
    async function reload(): Promise<void> {
      try {
        replace(message);
        editButton.hidden = false;
        await show(await load(subject, id));
        edit();
      } catch (e) {
        problem(e);
      }
    }
    area.addEventListener('input', update);
    replace(view, form);
    update();
    area.focus();
  }

  replace(view, h('p', { class: 'muted' }, 'Loading the note…'));
  load(subject, id).then((n) => {
    editButton.disabled = false;
    return show(n);
  }, problem);
  return box;
}
