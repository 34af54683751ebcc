#!/usr/bin/env python3
"""Does every figure of the old, long README still have a home? (issue 38, part 2)

Usage: bench/check_figure_homes.py [--old-rev REV] [--root DIR] [--verbose]

Reads README.md as it was at REV (default d03e65a, the last commit before README was split
into docs/ and bench/results/*/README.md) with `git show`, extracts every figure token from
it, and looks each up among the tokens of today's README.md, docs/**/*.md and
bench/results/**/README.md in the working tree. A figure token is a date (2026-11-27,
2026-11-28T05:57Z), a hex constant (0x7feb352d), a commit hash (7-40 hex digits with a
letter and a digit), a power (2^22) or a number (7, 1.5418e-5, 2,622, 0.283; with its
sign where a minus sign precedes it); digits inside a name (sm_90, libllvm19, x86-64's 86)
are part of the name, not figures. Each token is looked up on its own; a number counts
as at home when the same token (same digits, same form) appears anywhere in the new texts.
Prints the count and every token without a home, with the old line it came from; exits 1
when any is missing.
"""
import argparse
import os
import re
import subprocess
import sys

DEFAULT_OLD_REV = 'd03e65a'

TOKEN = re.compile(r'''
    (?P<date>\b\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?Z?)?)
  | (?P<hex>\b0x[0-9a-fA-F]+\b)
  | (?P<hash>\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b)
  | (?P<power>(?<![\w.])\d+\^\d+)
  | (?P<number>(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?(?![\w^]|\.\d))
''', re.X)


def tokens(text):
    """{token: first line it is on} for every figure token of a text."""
    found = {}
    for line in text.split('\n'):
        # a number glued to letters on its left is part of a name (sm_90, llvm19):
        # the lookbehind keeps those out; a unit on the right (11x, 4.2s) is allowed,
        # so strip a trailing unit letter run from the number match below
        for m in TOKEN.finditer(re.sub(r'(?<=\d)(x|s|ms|us|MB|KB|KiB|MiB|GB|M|K|G|%)(?=\W|$)', r' \1', line)):
            tok = m.group(0)
            found.setdefault(tok, line.strip())
    return found


def new_texts(root):
    # The same pages as the link check reads (.ci/check_links.py's default_files).
    sys.path.insert(0, os.path.join(root, '.ci'))
    from check_links import default_files
    texts = {}
    for p in default_files(root):
        with open(p, encoding='utf-8') as f:
            texts[os.path.relpath(p, root)] = f.read()
    return texts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--old-rev', default=DEFAULT_OLD_REV)
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument('--verbose', action='store_true', help='also list where each token lives')
    args = ap.parse_args()
    old = subprocess.run(['git', '-C', args.root, 'show', f'{args.old_rev}:README.md'],
                         capture_output=True, text=True, check=True).stdout
    old_tokens = tokens(old)
    texts = new_texts(args.root)
    homes = {}
    for name, text in texts.items():
        for tok in tokens(text):
            homes.setdefault(tok, []).append(name)
    missing = {t: line for t, line in old_tokens.items() if t not in homes}
    kinds = {}
    for t in old_tokens:
        kind = TOKEN.match(t).lastgroup if TOKEN.match(t) else 'other'
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f'old README at {args.old_rev}: {len(old.splitlines())} lines, {len(old_tokens)} distinct figure '
          f'tokens ({", ".join(f"{v} {k}s" for k, v in sorted(kinds.items()))})')
    print(f'new texts: {len(texts)} files, {sum(len(t.splitlines()) for t in texts.values())} lines')
    if args.verbose:
        for t in sorted(old_tokens):
            print(f'  {t}: {", ".join(homes.get(t, ["-"])[:3])}')
    print(f'{len(old_tokens) - len(missing)} have a home, {len(missing)} have none')
    for t, line in sorted(missing.items()):
        print(f'  missing {t!r}: {line[:160]}')
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
