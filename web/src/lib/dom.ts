// A tiny hyperscript helper: the dashboard has no framework (every page is a few tables,
// forms and canvases; a framework would cost more bytes than it saves code).
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, unknown>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') {
        el.addEventListener(k.slice(2).toLowerCase(), v as EventListener);
      } else if (k === 'class') {
        el.className = String(v);
      } else if (k === 'dataset') {
        Object.assign(el.dataset, v);
      } else if (k in el && k !== 'list' && typeof v !== 'string') {
        (el as unknown as Record<string, unknown>)[k] = v;
      } else {
        el.setAttribute(k, v === true ? '' : String(v));
      }
    }
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

export function replace(el: Node, ...children: (Child | Child[])[]): void {
  clear(el);
  append(el, children);
}

export async function copyText(text: string, button?: HTMLElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    if (button) flash(button, 'Copied');
  } catch {
    // Clipboard access needs a secure context and permission; fall back to selection.
    const ta = h('textarea', { style: 'position:fixed;opacity:0' }, text);
    document.body.appendChild(ta);
    ta.select();
    document.execCommand('copy');
    ta.remove();
    if (button) flash(button, 'Copied');
  }
}

function flash(button: HTMLElement, text: string): void {
  const old = button.textContent;
  button.textContent = text;
  setTimeout(() => {
    button.textContent = old;
  }, 1200);
}

export function download(name: string, text: string | Blob, type = 'text/plain'): void {
  const blob = typeof text === 'string' ? new Blob([text], { type }) : text;
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// A modal confirmation (native <dialog>: focus trapping and Escape for free).
export function confirmDialog(message: string, action: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dlg = h(
      'dialog',
      { class: 'confirm', 'aria-label': action },
      h('p', null, message),
      h(
        'form',
        { method: 'dialog', class: 'row' },
        h('button', { value: 'cancel', type: 'submit' }, 'Cancel'),
        h('button', { value: 'ok', type: 'submit', class: 'danger' }, action),
      ),
    );
    document.body.appendChild(dlg);
    dlg.addEventListener('close', () => {
      resolve(dlg.returnValue === 'ok');
      dlg.remove();
    });
    dlg.showModal();
    (dlg.querySelector('button[value=ok]') as HTMLButtonElement).focus();
  });
}

export function spinner(text = 'Loading…'): HTMLElement {
  return h('p', { class: 'muted loading', role: 'status' }, text);
}
