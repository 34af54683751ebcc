#!/usr/bin/env python3
"""Check that every relative link and anchor in the documentation resolves.

Usage: check_links.py [--root DIR] [FILE.md ...]

Without FILE arguments it checks README.md, docs/**/*.md and bench/results/**/README.md
under the repository root (DIR, default: the folder above this script). For every inline
link or image, [text](target) and ![alt](target), and every reference definition
[label]: target, outside fenced code blocks and code spans:
  - a target with a scheme (https:, mailto:, ...) is not checked (no network);
  - a relative path must name an existing file or folder, relative to the file it is in;
  - an anchor (#name, alone or after a path to a .md file) must be a heading of that file,
    as GitHub makes anchors of headings (lower case, punctuation dropped, spaces to '-',
    repeats numbered -1, -2, ...), or an <a id=...>/<a name=...> in it.
Prints one line per broken link (file:line: target: why) and exits 1 if there is any,
0 if none, 2 on a usage error. Standard library only, so CI runs it with any python3.
"""
import argparse
import os
import re
import sys
import urllib.parse

FENCE = re.compile(r'^\s{0,3}(`{3,}|~{3,})')
HEADING = re.compile(r'^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
SETEXT = re.compile(r'^\s{0,3}(=+|-+)\s*$')
HTML_ANCHOR = re.compile(r'<a\s+[^>]*(?:id|name)\s*=\s*["\']([^"\']+)["\']', re.I)
REF_DEF = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)')
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def strip_code_spans(line):
    """Blank out `code spans` (any run of backticks, closed by the same run)."""
    out, i = [], 0
    while i < len(line):
        if line[i] == '`':
            j = i
            while j < len(line) and line[j] == '`':
                j += 1
            ticks = line[i:j]
            k = line.find(ticks, j)
            if k < 0:
                out.append(line[i:j])
                i = j
                continue
            out.append(' ' * (k + len(ticks) - i))
            i = k + len(ticks)
        else:
            out.append(line[i])
            i += 1
    return ''.join(out)


def prose_lines(text):
    """(line number, line) for lines outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split('\n'), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield n, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # links: their text
    text = re.sub(r'<[^>]+>', '', text)  # inline HTML
    text = text.strip().lower()
    text = ''.join(c for c in text if c.isalnum() or c in ' -_')
    return text.replace(' ', '-')


def anchors_of(path, cache={}):
    if path in cache:
        return cache[path]
    with open(path, encoding='utf-8') as f:
        text = f.read()
    found, seen = set(), {}
    previous = None
    for _, line in prose_lines(text):
        m = HEADING.match(line)
        title = m.group(2) if m else None
        if not m and previous and previous.strip() and SETEXT.match(line) \
                and not HEADING.match(previous):
            title = previous.strip()
        if title is not None:
            base = slug(title)
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f'{base}-{n}')
        for a in HTML_ANCHOR.findall(line):
            found.add(a)
        previous = line
    cache[path] = found
    return found


def link_targets(line):
    """Targets of inline links/images and reference definitions on one line."""
    line = strip_code_spans(line)
    m = REF_DEF.match(line)
    if m:
        yield m.group(1).strip('<>')
        return
    i = 0
    while True:
        j = line.find('](', i)
        if j < 0:
            return
        # the target runs to the matching ')' (balanced parentheses, as CommonMark has it)
        k, depth = j + 2, 1
        while k < len(line) and depth:
            if line[k] == '(':
                depth += 1
            elif line[k] == ')':
                depth -= 1
            k += 1
        if depth == 0:
            target = line[j + 2:k - 1].strip()
            if target.startswith('<') and '>' in target:
                target = target[1:target.index('>')]
            else:
                target = target.split()[0] if target else target  # drop a "title"
            yield target
        i = j + 2


def check_file(path, root):
    errors = []
    with open(path, encoding='utf-8') as f:
        text = f.read()
    here = os.path.dirname(os.path.abspath(path))
    for n, line in prose_lines(text):
        for target in link_targets(line):
            where = f'{os.path.relpath(path, root)}:{n}: {target}'
            if not target:
                errors.append(f'{where}: empty link target')
                continue
            if SCHEME.match(target) or target.startswith('//'):
                continue
            file_part, _, anchor = target.partition('#')
            file_part = urllib.parse.unquote(file_part)
            dest = os.path.normpath(os.path.join(here, file_part)) if file_part else os.path.abspath(path)
            if not os.path.exists(dest):
                errors.append(f'{where}: no such file or folder ({os.path.relpath(dest, root)})')
                continue
            if anchor:
                if os.path.isdir(dest) or not dest.endswith('.md'):
                    continue  # anchors of non-Markdown targets are not ours to check
                if urllib.parse.unquote(anchor) not in anchors_of(dest):
                    errors.append(f'{where}: no heading or anchor #{anchor} in {os.path.relpath(dest, root)}')
    return errors


def default_files(root):
    files = [os.path.join(root, 'README.md')]
    for sub, pick in (('docs', lambda name: name.endswith('.md')),
                      (os.path.join('bench', 'results'), lambda name: name == 'README.md')):
        for folder, dirs, names in os.walk(os.path.join(root, sub)):
            dirs.sort()
            files += [os.path.join(folder, name) for name in sorted(names) if pick(name)]
    return [f for f in files if os.path.isfile(f)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument('files', nargs='*')
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    files = args.files or default_files(root)
    if not files:
        print('check_links: no files to check', file=sys.stderr)
        return 2
    errors = []
    for path in files:
        if not os.path.isfile(path):
            print(f'check_links: {path}: no such file', file=sys.stderr)
            return 2
        errors += check_file(path, root)
    for e in errors:
        print(e)
    print(f'check_links: {len(files)} files, {len(errors)} broken links')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
