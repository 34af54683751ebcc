import { describe, expect, it } from 'vitest';
import { markdownRenderer, noteLength } from '../src/lib/markdown';

describe('note Markdown', () => {
  it('renders CommonMark and GFM', async () => {
    const md = await markdownRenderer();
    expect(md('# Seed 7\n\n**bold** and `code`')).toContain('<h1>Seed 7</h1>');
    const table = md('| a | b |\n|---|---|\n| 1 | 2 |');
    expect(table).toContain('<table>');
    expect(table).toContain('<td>2</td>');
    expect(md('- [x] done\n- [ ] todo')).toContain('type="checkbox"');
    expect(md('~~gone~~')).toContain('<del>gone</del>');
  });

  it('never lets a note run script', async () => {
    const md = await markdownRenderer();
    const html = md(
      '<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1)) [y](data:text/html,hi)',
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toMatch(/href="(javascript|data):/);
    expect(md('[ok](https://example.org/a?b=1)')).toContain('href="https://example.org/a?b=1"');
  });

  it('counts characters as the daemon does (code points)', () => {
    expect(noteLength('abc')).toBe(3);
    expect(noteLength('é')).toBe(1);
    expect(noteLength('😀')).toBe(1); // two UTF-16 units, one code point
    expect(noteLength('')).toBe(0);
  });
});
