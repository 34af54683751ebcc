// The start-run form, generated from schema/run.schema.json (the request schema of
// POST /api/v1/runs): one input per property, defaults shown, nested objects as groups.
// Only fields the user filled in are sent; the daemon validates, and its 422 answer is
// shown at the field it names (problem.field / problem.errors[].field: a JSON pointer).
import runSchema from '../../../schema/run.schema.json';
import { api, call, ApiError, type RunConfig, type RunDetail } from '../api/client';
import { h, replace } from '../lib/dom';
import { parseSeedPrograms } from '../lib/polish';

interface JsonSchema {
  type?: string | string[];
  description?: string;
  title?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  maxLength?: number;
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  $ref?: string;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
}

const root = runSchema as unknown as JsonSchema & { definitions: Record<string, JsonSchema> };

function deref(s: JsonSchema): JsonSchema {
  const m = s.$ref ? /^#\/definitions\/(.+)$/.exec(s.$ref) : null;
  return m ? root.definitions[m[1]] : s;
}

function types(s: JsonSchema): string[] {
  const own = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  // oneOf/anyOf (a seed: integer up to 2^53-1 or a decimal string): the union.
  return [...own, ...[...(s.oneOf ?? []), ...(s.anyOf ?? [])].flatMap((b) => types(deref(b)))];
}

// Fields shown first, open; the rest sit in a collapsed "advanced" group.
const PRIMARY = ['name', 'width', 'max_steps', 'min_steps', 'pool_size', 'budget', 'seed', 'threads', 'seed_programs'];

// Fields of program text: a text area, one program per block (lib/polish.ts).
const PROGRAM_LISTS = ['seed_programs'];

const MAX_SAFE = 9007199254740991n;

// A text input's value as JSON for a schema; undefined when left empty. Throws with a
// message for text that cannot be read at all (the daemon judges everything else).
function parseValue(s: JsonSchema, text: string): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  const ty = types(s).filter((x) => x !== 'null');
  const item = s.items ? deref(s.items) : null;
  if (ty.includes('array'))
    return t
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((v) => (item && types(item).includes('number') ? Number(v) : v));
  if (ty.includes('object')) {
    try {
      return JSON.parse(t);
    } catch {
      throw new Error('expected a JSON object, e.g. {"xsr": 3}');
    }
  }
  if (ty.includes('integer')) {
    // Seeds travel as an integer up to 2^53-1 and as a decimal string beyond.
    if (/^\d+$/.test(t) && BigInt(t) > MAX_SAFE) return t;
    const n = Number(t);
    return Number.isFinite(n) ? n : t;
  }
  if (ty.includes('number')) {
    const n = Number(t);
    return Number.isFinite(n) ? n : t;
  }
  return t;
}

function hint(s: JsonSchema): string {
  const parts: string[] = [];
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  const lo = s.minimum ?? s.exclusiveMinimum,
    hi = s.maximum ?? s.exclusiveMaximum;
  if (lo !== undefined || hi !== undefined) {
    parts.push(
      `${lo ?? '…'}${s.exclusiveMinimum !== undefined ? ' <' : ' ≤'} x ${s.exclusiveMaximum !== undefined ? '<' : '≤'} ${hi ?? '…'}`,
    );
  }
  return parts.join(', ');
}

interface Field {
  pointer: string;
  schema: JsonSchema;
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  error: HTMLElement;
}

export class RunForm {
  readonly el: HTMLFormElement;
  private fields: Field[] = [];
  private status: HTMLElement;

  constructor(private readonly onCreated: (run: RunDetail) => void) {
    const primary = h('div', { class: 'grid-form' });
    const advanced = h('div', { class: 'grid-form' });
    for (const [name, sub] of Object.entries(root.properties ?? {})) {
      const target = PRIMARY.includes(name) ? primary : advanced;
      this.addField(target, `/${name}`, name, sub);
    }
    this.status = h('div', { class: 'form-status', role: 'status', 'aria-live': 'polite' });
    this.el = h(
      'form',
      {
        class: 'run-form',
        novalidate: true,
        'aria-label': 'Start a run',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void this.submit();
        },
      },
      h('h2', null, 'Start a run'),
      h('p', { class: 'muted' }, String(root.description ?? '')),
      primary,
      h('details', null, h('summary', null, 'Advanced settings'), advanced),
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'submit', class: 'primary' }, 'Start run'),
        h('label', null, h('input', { type: 'checkbox', name: 'start-paused' }), ' create without starting'),
      ),
      this.status,
    );
  }

  private addField(target: HTMLElement, pointer: string, name: string, raw: JsonSchema): void {
    const s = deref(raw);
    const ty = types(s).filter((x) => x !== 'null');
    if (ty.includes('object') && s.properties) {
      const group = h('fieldset', { class: 'group' }, h('legend', null, name));
      if (s.description) group.appendChild(h('p', { class: 'muted small' }, s.description));
      for (const [k, v] of Object.entries(s.properties)) this.addField(group, `${pointer}/${k}`, k, v);
      target.appendChild(group);
      return;
    }
    const id = `f${pointer.replace(/\//g, '-')}`;
    let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    if (PROGRAM_LISTS.includes(name)) {
      input = h('textarea', {
        id,
        name: pointer,
        rows: 4,
        spellcheck: false,
        autocomplete: 'off',
        placeholder: 'program text, e.g. x ^= x >> 16; x *= 0x21f0aaad; … (a blank line between programs)',
      });
    } else if (ty.includes('boolean')) {
      input = h(
        'select',
        { id, name: pointer },
        h('option', { value: '' }, s.default !== undefined ? `default (${String(s.default)})` : 'default'),
        h('option', { value: 'true' }, 'true'),
        h('option', { value: 'false' }, 'false'),
      );
    } else {
      const numeric = ty.includes('number') || (ty.includes('integer') && name !== 'seed');
      input = h('input', {
        id,
        name: pointer,
        type: 'text',
        inputmode: numeric ? 'decimal' : undefined,
        autocomplete: 'off',
        placeholder:
          s.default !== undefined
            ? String(s.default)
            : ty.includes('array')
              ? 'comma-separated'
              : ty.includes('object')
                ? 'JSON object'
                : '',
      });
    }
    const error = h('span', { class: 'field-error', id: `${id}-error`, role: 'alert' });
    input.setAttribute('aria-describedby', `${id}-error ${id}-hint`);
    const help = [s.description, hint(s)].filter(Boolean).join(' · ');
    const item = h(
      'div',
      { class: 'field', dataset: { pointer } },
      h('label', { for: id }, name),
      input,
      h('span', { class: 'hint small muted', id: `${id}-hint` }, help),
      error,
    );
    target.appendChild(item);
    this.fields.push({ pointer, schema: s, input, error });
  }

  private body(): RunConfig {
    const body: Record<string, unknown> = {};
    for (const f of this.fields) {
      const s = f.schema;
      let v: unknown;
      if (f.input instanceof HTMLSelectElement) v = f.input.value === '' ? undefined : f.input.value === 'true';
      else if (f.input instanceof HTMLTextAreaElement) {
        const programs = parseSeedPrograms(f.input.value);
        v = programs.length ? programs : undefined;
      } else {
        try {
          v = parseValue(s, f.input.value);
        } catch (e) {
          this.fieldError(f.pointer, (e as Error).message);
          throw e;
        }
      }
      if (v === undefined) continue;
      const keys = f.pointer.split('/').slice(1);
      let o = body;
      for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
      o[keys[keys.length - 1]] = v;
    }
    return body as RunConfig;
  }

  private clearErrors(): void {
    for (const f of this.fields) {
      replace(f.error);
      f.input.removeAttribute('aria-invalid');
    }
    replace(this.status);
  }

  // Marks the field a JSON pointer names (or its nearest enclosing field); false if none.
  private fieldError(pointer: string, message: string): boolean {
    let p = pointer;
    while (p) {
      const f = this.fields.find((x) => x.pointer === p);
      if (f) {
        f.error.textContent = message;
        f.input.setAttribute('aria-invalid', 'true');
        const details = f.input.closest('details');
        if (details) details.open = true;
        return true;
      }
      p = p.slice(0, p.lastIndexOf('/'));
    }
    return false;
  }

  async submit(): Promise<void> {
    this.clearErrors();
    let body: RunConfig;
    try {
      body = this.body();
    } catch {
      return;
    }
    const paused = (this.el.querySelector('input[name=start-paused]') as HTMLInputElement).checked;
    const button = this.el.querySelector('button[type=submit]') as HTMLButtonElement;
    button.disabled = true;
    this.status.textContent = 'Starting…';
    try {
      const run = await call(() =>
        api.POST('/api/v1/runs', { body, params: { query: paused ? { start: false } : {} } }),
      );
      this.status.textContent = `Run ${run.id} created.`;
      this.onCreated(run);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      const p = e.problem;
      let placed = false;
      // Per-field messages where the daemon lists them, else its detail at the one field.
      for (const item of p.errors ?? []) placed = this.fieldError(item.field, item.message) || placed;
      if (!placed && p.field) placed = this.fieldError(p.field, p.detail);
      replace(
        this.status,
        h('span', { class: 'error' }, placed ? `${p.title}: see the marked field.` : `${p.title}: ${p.detail}`),
      );
      const first = this.el.querySelector('[aria-invalid=true]') as HTMLElement | null;
      first?.focus();
    } finally {
      button.disabled = false;
    }
  }
}
