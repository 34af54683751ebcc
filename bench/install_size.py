#!/usr/bin/env python3
"""What README's first command installs on a fresh Debian 12 machine: how many Debian packages
and how much disk, counted by apt's own solver without installing anything.

Usage: bench/install_size.py [--root DIR] [--out FILE]

A fresh machine is modelled as this machine's packages of Priority "required" and every
package they depend on (Depends, Pre-Depends; what the smallest Debian 12 system, such as
the debian:bookworm image, holds). The script writes that package set to a dpkg status file
in a temporary folder and asks `apt-get -s` (a simulation: nothing is downloaded or
installed) what `.ci/install-deps` would install on it: the packages of .ci/packages.txt and
Debian's npm (install-deps adds it where no npm is on PATH, as on a fresh machine), with
--no-install-recommends as install-deps passes it. It sums the Installed-Size and Size of
every package apt would install (`apt-cache show`, the candidate version). Mesa from
bookworm-backports, which install-deps installs afterwards, is not in the simulation.

Needs a Debian machine whose apt lists are current (apt-get update). Prints the summary and,
with --out, writes it to FILE. Also prints the du of what the machine it runs on has
installed in the largest folders, where present.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile


def listed_packages(packages_txt):
    """The package names of .ci/packages.txt (comments and blank lines left out)."""
    names = []
    with open(packages_txt) as f:
        for line in f:
            line = re.sub(r'#.*', '', line).strip()
            if line:
                names.append(line)
    return names


def parse_status(text):
    """{name: (stanza, [dependency alternatives], priority)} of the installed packages of a
    dpkg status file, and {virtual name: providing package}."""
    packages, provides = {}, {}
    for stanza in text.split('\n\n'):
        if 'Status: install ok installed' not in stanza:
            continue
        name = re.search(r'^Package: (\S+)', stanza, re.M).group(1)
        deps = []
        for field in re.findall(r'^(?:Pre-)?Depends: (.*)$', stanza, re.M):
            deps.extend(d.strip() for d in field.split(',') if d.strip())
        priority = re.search(r'^Priority: (\S+)', stanza, re.M)
        packages[name] = (stanza.strip('\n'), deps, priority.group(1) if priority else '')
        for field in re.findall(r'^Provides: (.*)$', stanza, re.M):
            for p in field.split(','):
                provides.setdefault(p.strip().split(' ')[0], name)
    return packages, provides


def base_system(packages, provides):
    """The packages of Priority required and everything they depend on, among PACKAGES."""
    def resolve(alternatives):
        for alt in alternatives.split('|'):
            name = alt.strip().split(' ')[0].split(':')[0]
            if name in packages:
                return name
            if name in provides:
                return provides[name]
        return None

    seen, todo = set(), [n for n, v in packages.items() if v[2] == 'required']
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for dep in packages[name][1]:
            found = resolve(dep)
            if found and found not in seen:
                todo.append(found)
    return seen


def simulated_installs(apt_output):
    """The package names an `apt-get -s install` output installs or upgrades (its Inst lines)."""
    return [m.group(1) for m in re.finditer(r'^Inst (\S+)', apt_output, re.M)]


def sizes(apt_cache_show):
    """{name: (installed KiB, download bytes)} of an `apt-cache show --no-all-versions` output."""
    out = {}
    for stanza in apt_cache_show.split('\n\n'):
        name = re.search(r'^Package: (\S+)', stanza, re.M)
        installed = re.search(r'^Installed-Size: (\d+)', stanza, re.M)
        download = re.search(r'^Size: (\d+)', stanza, re.M)
        if name and installed and name.group(1) not in out:
            out[name.group(1)] = (int(installed.group(1)), int(download.group(1)) if download else 0)
    return out


def du(path):
    p = subprocess.run(['du', '-sh', path], capture_output=True, text=True)
    return p.stdout.split()[0] if p.returncode == 0 and p.stdout else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument('--out')
    args = ap.parse_args()
    listed = listed_packages(os.path.join(args.root, '.ci', 'packages.txt'))
    with open('/var/lib/dpkg/status') as f:
        packages, provides = parse_status(f.read())
    base = base_system(packages, provides)
    lines = []
    commit = subprocess.run(['git', '-C', args.root, 'rev-parse', '--short', 'HEAD'],
                            capture_output=True, text=True).stdout.strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%MZ')
    lines.append(f'bench/install_size.py at commit {commit}, {now}')
    lines.append(f'.ci/packages.txt lists {len(listed)} packages')
    lines.append(f'fresh machine modelled as {len(base)} packages (Priority required and their dependencies)')
    with tempfile.TemporaryDirectory() as tmp:
        status = os.path.join(tmp, 'status')
        with open(status, 'w') as f:
            f.write('\n\n'.join(packages[n][0] for n in sorted(base)) + '\n\n')
        results = {}
        for label, extra in (('packages.txt', []), ('packages.txt + npm', ['npm'])):
            p = subprocess.run(['apt-get', '-s', '-o', f'Dir::State::status={status}', 'install',
                                '--no-install-recommends', *listed, *extra],
                               capture_output=True, text=True)
            if p.returncode != 0:
                print(p.stdout[-3000:] + p.stderr[-3000:], file=sys.stderr)
                return 1
            results[label] = simulated_installs(p.stdout)
    all_names = results['packages.txt + npm']
    show = subprocess.run(['apt-cache', 'show', '--no-all-versions', *all_names],
                          capture_output=True, text=True).stdout
    size = sizes(show)
    for label, names in results.items():
        kib = sum(size.get(n, (0, 0))[0] for n in names)
        dl = sum(size.get(n, (0, 0))[1] for n in names)
        lines.append(f'apt-get -s install --no-install-recommends {label}: {len(names)} packages, '
                     f'installed size {kib / 1024 / 1024:.2f} GiB, download {dl / 1024 / 1024:.0f} MiB')
    for name in ('chromium', 'llvm-19-dev', 'libopenmpi-dev', 'mesa-vulkan-drivers', 'nodejs', 'npm'):
        lines.append(f'  includes {name}: {"yes" if name in all_names else "no"}')
    biggest = sorted(all_names, key=lambda n: -size.get(n, (0, 0))[0])[:8]
    lines.append('  largest: ' + ', '.join(f'{n} {size[n][0] // 1024} MiB' for n in biggest if n in size))
    lines.append('du -sh on this machine (what is installed here):')
    node_modules = sorted(os.path.relpath(os.path.join(d, 'node_modules'), args.root)
                          for d, _, files in os.walk(args.root)
                          if 'package-lock.json' in files and '/node_modules' not in d and '/build/' not in d + '/')
    for path in ('/usr/lib/llvm-19', '/usr/lib/chromium', *node_modules, 'build/release'):
        full = path if path.startswith('/') else os.path.join(args.root, path)
        found = du(full)
        if found:
            lines.append(f'  {path}: {found}')
    text = '\n'.join(lines) + '\n'
    print(text, end='')
    if args.out:
        with open(args.out, 'w') as f:
            f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
