#!/usr/bin/env python3
"""Proves that .ci/check_style fails where it should: it runs the check on small git
repositories written to a temporary folder (with this repository's .clang-format and
.clang-tidy) and expects
  * exit 0 and 'nothing to check' on a clone of one commit (no parent, no upstream);
  * exit 1 naming the file for a badly formatted new .cpp (base HEAD~1);
  * exit 0 when the change only touches well formatted lines of a file whose other lines
    are not formatted (only the changed lines are checked), and exit 1 with --whole-files;
  * the base taken from MIXFORGE_STYLE_BASE and from the upstream branch's merge-base;
  * exit 1 naming bugprone-use-after-move for a .cpp that uses a moved-from string
    (clang-tidy, with a compile_commands.json).
Needs git, clang-format and clang-tidy (exit 77, skipped, without them)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CHECKER = os.path.join(HERE, 'check_style')

GOOD = '#include <string>\n\nint twice(int x) { return 2 * x; }\n'
BAD = '#include <string>\n\nint   twice( int x ){\nreturn 2*x;}\n'
# A file that is not formatted except its last function; the change edits only that one.
MIXED_OLD = 'int   a( int x ){return x;}\n\nint b(int x) { return x + 1; }\n'
MIXED_NEW = 'int   a( int x ){return x;}\n\nint b(int x) { return x + 2; }\n'
MOVED = ('#include <string>\n#include <utility>\n\n'
         'std::string f(std::string s) {\n'
         '  std::string t = std::move(s);\n'
         '  return t + s;\n'
         '}\n')


def git(repo, *args):
    subprocess.run(['git', '-C', repo, '-c', 'user.name=check', '-c', 'user.email=check@example.invalid',
                    '-c', 'commit.gpgsign=false', *args], check=True, capture_output=True, text=True)


def write(repo, name, text):
    path = os.path.join(repo, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as fh:
        fh.write(text)


def new_repo(parent, name):
    repo = os.path.join(parent, name)
    os.makedirs(repo)
    git(repo, 'init', '-q', '-b', 'main')
    for config in ('.clang-format', '.clang-tidy'):
        shutil.copy(os.path.join(ROOT, config), os.path.join(repo, config))
    return repo


def commit(repo, message, files=None):
    for name, text in (files or {}).items():
        write(repo, name, text)
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', message)


def run(repo, *args, env=None):
    e = dict(os.environ)
    e.pop('MIXFORGE_STYLE_BASE', None)
    e.update(env or {})
    p = subprocess.run([sys.executable, CHECKER, '--root', repo, '--build-dir', os.path.join(repo, 'build'), *args],
                       capture_output=True, text=True, timeout=300, env=e)
    return p.returncode, p.stdout + p.stderr


def main():
    for t in ('git', 'clang-format', 'clang-tidy'):
        if not shutil.which(t):
            print(f'check_style_test skipped: {t} not found (.ci/install-deps installs it)')
            return 77
    failures = []

    def expect(name, got, want_rc, *want_texts):
        rc, out = got
        if rc != want_rc or any(w not in out for w in want_texts):
            failures.append(f'{name}: exit {rc} (want {want_rc}, text {want_texts}), output:\n{out}')

    with tempfile.TemporaryDirectory(prefix='check_style_test_') as tmp:
        fresh = new_repo(tmp, 'fresh')
        commit(fresh, 'one commit', {'src/good.cpp': GOOD, 'src/bad.cpp': BAD})
        expect('a clone of one commit has nothing to check', run(fresh), 0, 'nothing to check')

        repo = new_repo(tmp, 'repo')
        commit(repo, 'first', {'src/good.cpp': GOOD, 'src/mixed.cpp': MIXED_OLD})
        expect('no changed C++ file (the first commit against nothing) passes', run(repo), 0, 'nothing to check')
        first = subprocess.run(['git', '-C', repo, 'rev-parse', 'HEAD'], capture_output=True, text=True).stdout.strip()
        write(repo, 'src/bad.cpp', BAD)
        commit(repo, 'bad')
        expect('a badly formatted new .cpp fails', run(repo), 1, 'src/bad.cpp', 'clang-format')
        expect('--base takes a commit', run(repo, '--base', first), 1, 'src/bad.cpp')
        expect('MIXFORGE_STYLE_BASE sets the base', run(repo, env={'MIXFORGE_STYLE_BASE': 'HEAD'}), 0,
               'no changed C++')

        write(repo, 'src/bad.cpp', GOOD)
        commit(repo, 'formatted')
        write(repo, 'src/mixed.cpp', MIXED_NEW)
        commit(repo, 'touch a formatted line only')
        expect('a change to well formatted lines passes', run(repo), 0, 'clean')
        expect('--whole-files checks the rest of the file', run(repo, '--whole-files'), 1, 'src/mixed.cpp')

        # The branch's upstream: the merge-base with it, not HEAD~1.
        git(repo, 'checkout', '-q', '-b', 'topic')
        git(repo, 'branch', '-q', '--set-upstream-to=main')
        write(repo, 'src/bad2.cpp', BAD)
        commit(repo, 'bad again')
        write(repo, 'README', 'a later commit that changes no C++ file\n')
        commit(repo, 'readme')
        expect('the upstream merge-base covers every commit of the branch', run(repo), 1, 'merge-base',
               'src/bad2.cpp')
        git(repo, 'checkout', '-q', 'main')

        # clang-tidy: a use after move in a changed .cpp, with compile commands.
        write(repo, 'src/moved.cpp', MOVED)
        commit(repo, 'use after move')
        os.makedirs(os.path.join(repo, 'build'))
        with open(os.path.join(repo, 'build', 'compile_commands.json'), 'w') as fh:
            json.dump([{'directory': repo, 'file': os.path.join(repo, 'src', 'moved.cpp'),
                        'command': f'c++ -std=c++20 -c {os.path.join(repo, "src", "moved.cpp")}'}], fh)
        expect('clang-tidy finds a use after move', run(repo), 1, 'bugprone-use-after-move', 'src/moved.cpp')

    for f in failures:
        print('FAIL', f)
    if failures:
        return 1
    print('check_style_test: all cases behave')
    return 0


if __name__ == '__main__':
    sys.exit(main())
