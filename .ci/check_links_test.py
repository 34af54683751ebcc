#!/usr/bin/env python3
"""Proves that .ci/check_links.py fails on broken links: it runs the checker on small
Markdown files written to a temporary folder and expects exit 0 for good links, exit 1
naming the link for a missing file, a missing anchor and a missing image, and links in
code (fenced or inline) to be left alone."""
import os
import subprocess
import sys
import tempfile

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'check_links.py')


def run(root, *files):
    p = subprocess.run([sys.executable, CHECKER, '--root', root, *files],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def main():
    failures = []

    def expect(name, got, want_rc, want_text=None):
        rc, out = got
        if rc != want_rc or (want_text and want_text not in out):
            failures.append(f'{name}: exit {rc} (want {want_rc}), output:\n{out}')

    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, 'docs'))
        with open(os.path.join(root, 'docs', 'page.md'), 'w') as f:
            f.write('# A page\n\n## Scoring and its speed (`eval`, `GET /api/v1/x`)\n\n'
                    '## Twice\n\n## Twice\n\n<a id="kept"></a>\n')
        with open(os.path.join(root, 'pic.png'), 'wb') as f:
            f.write(b'\x89PNG')

        def page(name, body):
            path = os.path.join(root, name)
            with open(path, 'w') as f:
                f.write(body)
            return path

        good = page('good.md', '# Good\n\n'
                    '[page](docs/page.md), [speed](docs/page.md#scoring-and-its-speed-eval-get-apiv1x), '
                    '[second](docs/page.md#twice-1), [html](docs/page.md#kept), [self](#good), '
                    '[folder](docs/), [web](https://example.invalid/nowhere) ![pic](pic.png "a title")\n\n'
                    '[ref]: docs/page.md#twice\n\n'
                    '```\n[in a fence](missing.md)\n```\n\n'
                    'Inline code: `[not a link](missing.md)`.\n')
        expect('good links pass', run(root, good), 0)
        expect('a missing file fails', run(root, page('f.md', 'See [gone](docs/gone.md).\n')), 1, 'docs/gone.md')
        expect('a missing anchor fails', run(root, page('a.md', 'See [x](docs/page.md#no-such-heading).\n')), 1,
               '#no-such-heading')
        expect('a missing anchor in the same file fails', run(root, page('s.md', '# Title\n\n[x](#titel)\n')), 1,
               '#titel')
        expect('a missing image fails', run(root, page('i.md', '![pic](nothere.png)\n')), 1, 'nothere.png')
        expect('a broken reference definition fails', run(root, page('r.md', '[r]: docs/none.md\n')), 1,
               'docs/none.md')
        expect('one broken link among good ones fails', run(root, good, page('f2.md', '[gone](gone.md)\n')), 1,
               'gone.md')

    for f in failures:
        print('FAIL ' + f)
    print(f'check_links_test: {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
