// Markdown of users' notes: micromark (CommonMark + GFM tables, task lists,
// strikethrough, autolinks), loaded on first use so the first page load does not carry it.
// micromark escapes raw HTML and drops javascript:, vbscript: and data: links unless told
// otherwise, so a note can never run script in the dashboard (tested in markdown.test.ts).
export const MAX_NOTE_CHARS = 65536;

let renderer: Promise<(md: string) => string> | null = null;
export function markdownRenderer(): Promise<(md: string) => string> {
  renderer ??= Promise.all([import('micromark'), import('micromark-extension-gfm')]).then(
    ([{ micromark }, { gfm, gfmHtml }]) =>
      (md: string) =>
        micromark(md, { extensions: [gfm()], htmlExtensions: [gfmHtml()] }),
  );
  return renderer;
}

// Characters as the daemon counts them (Unicode code points, not UTF-16 units).
export function noteLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
