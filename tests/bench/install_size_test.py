#!/usr/bin/env python3
"""Checks bench/install_size.py's parsing on small hand-written inputs: the listed packages of a
packages.txt, the base system (Priority required and what it depends on, through alternatives
and virtual packages), the Inst lines of an apt simulation and the sizes of apt-cache show."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'bench'))
import install_size  # noqa: E402

STATUS = '''Package: bash
Status: install ok installed
Priority: required
Pre-Depends: libc6 (>= 2.36), libtinfo6
Depends: base-files (>= 2.1.12), debianutils (>= 5.6-0.1)

Package: libc6
Status: install ok installed
Priority: optional
Depends: libgcc-s1

Package: libgcc-s1
Status: install ok installed
Priority: optional

Package: libtinfo6
Status: install ok installed
Priority: optional

Package: base-files
Status: install ok installed
Priority: required

Package: debianutils
Status: install ok installed
Priority: required
Depends: awk-virtual | nothing-here

Package: mawk
Status: install ok installed
Priority: required
Provides: awk-virtual

Package: gcc
Status: install ok installed
Priority: optional
Depends: cpp

Package: cpp
Status: install ok installed
Priority: optional

Package: removed
Status: deinstall ok config-files
Priority: required
'''


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'packages.txt')
        with open(path, 'w') as f:
            f.write('# comment\nbuild-essential\n\n  cmake  # trailing comment\n')
        got = install_size.listed_packages(path)
        if got != ['build-essential', 'cmake']:
            failures.append(f'listed_packages: {got}')
    packages, provides = install_size.parse_status(STATUS)
    if 'removed' in packages or provides.get('awk-virtual') != 'mawk':
        failures.append(f'parse_status: {sorted(packages)} {provides}')
    base = install_size.base_system(packages, provides)
    want = {'bash', 'libc6', 'libgcc-s1', 'libtinfo6', 'base-files', 'debianutils', 'mawk'}
    if base != want:
        failures.append(f'base_system: {sorted(base)}, want {sorted(want)}')
    sim = 'NOTE: This is only a simulation!\nInst gcc (12.2.0 Debian:12 [amd64])\nConf gcc\nInst cpp (12 [amd64]) []\n'
    if install_size.simulated_installs(sim) != ['gcc', 'cpp']:
        failures.append(f'simulated_installs: {install_size.simulated_installs(sim)}')
    show = 'Package: gcc\nInstalled-Size: 2048\nSize: 5000\n\nPackage: cpp\nInstalled-Size: 10\n\nPackage: gcc\nInstalled-Size: 1\n'
    if install_size.sizes(show) != {'gcc': (2048, 5000), 'cpp': (10, 0)}:
        failures.append(f'sizes: {install_size.sizes(show)}')
    for f in failures:
        print('FAIL:', f)
    print('install_size_test:', 'failed' if failures else 'passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
