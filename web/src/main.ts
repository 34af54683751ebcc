// The dashboard: hash routes (the daemon serves static files only, so every page is
// index.html): #/ runs, #/runs/ID, #/functions/ID, #/evaluate, #/bakes, #/bakes/ID.
import './style.css';
import { h, replace } from './lib/dom';
import type { Page } from './pages/page';
type PageFactory = (root: HTMLElement, ...args: string[]) => Page | Promise<Page>;

const routes: [RegExp, () => Promise<PageFactory>][] = [
  [/^#?\/?$/, async () => (await import('./pages/runs')).runsPage],
  [/^#\/runs\/([A-Za-z0-9_-]+)$/, async () => (await import('./pages/run')).runPage],
  [/^#\/functions\/([A-Za-z0-9_-]+)$/, async () => (await import('./pages/function')).functionPage],
  [/^#\/evaluate$/, async () => (await import('./pages/evaluate')).evaluatePage],
  [/^#\/bakes$/, async () => (await import('./pages/bakes')).bakesPage],
  [/^#\/bakes\/([a-z0-9]+)$/, async () => (await import('./pages/bakes')).bakePage],
];

const root = document.getElementById('app') as HTMLElement;
let current: Page | null = null;
let generation = 0;

async function route(): Promise<void> {
  const gen = ++generation;
  current?.dispose?.();
  current = null;
  const hash = location.hash || '#/';
  for (const [re, load] of routes) {
    const m = re.exec(hash);
    if (!m) continue;
    const factory = await load();
    if (gen !== generation) return;
    replace(root);
    const page = await factory(root, ...m.slice(1).map(decodeURIComponent));
    if (gen !== generation) {
      page.dispose?.();
      return;
    }
    current = page;
    return;
  }
  replace(
    root,
    h('h1', null, 'Not found'),
    h('p', null, 'No page at ', h('code', null, hash), '. ', h('a', { href: '#/' }, 'All runs')),
  );
}

window.addEventListener('hashchange', () => {
  void route();
});
void route();
