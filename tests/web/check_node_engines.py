#!/usr/bin/env python3
"""Every npm package mixforge installs (web/ and the test tool folders: all package-lock.json
files of the repository) must run on the Node.js a fresh Debian bookworm machine gets from
its own packages (nodejs 18.20.4), because README's first command installs that one. The
lock files record each package's `engines.node` range; this check evaluates them (npm's
semver range grammar, as far as the lock files use it) and names every package that would
refuse that Node. (Vite 8 needs Node 20.19: with it the dashboard's build failed on a
fresh bookworm machine while machines with a newer Node passed.)

    check_node_engines.py NODE_VERSION REPO_ROOT
    check_node_engines.py --self-test
"""
import json
import re
import sys
from pathlib import Path


def parse_version(text):
    """'14.16' -> ((14, 16, 0), 2): the version padded with zeros, and how many parts were given
    (a wildcard part ends the given ones)."""
    parts = []
    for p in text.split("."):
        if p in ("x", "X", "*", ""):
            break
        if not p.isdigit():
            raise ValueError(f"not a version: {text!r}")
        parts.append(int(p))
    given = len(parts)
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts[:3]), given


def upper_of(version, given):
    """The exclusive upper bound of a partial version: 6 -> 7.0.0, 6.2 -> 6.3.0."""
    if given == 0:
        return None
    v = list(version)
    v[given - 1] += 1
    for i in range(given, 3):
        v[i] = 0
    return tuple(v)


def comparator_ok(v, comp):
    m = re.fullmatch(r"(>=|<=|>|<|=|\^|~)?\s*v?([0-9xX*.]+)", comp)
    if not m:
        raise ValueError(f"unsupported range part: {comp!r}")
    op, (ver, given) = m.group(1) or "", parse_version(m.group(2))
    if op == ">=":
        return v >= ver
    if op == ">":
        upper = upper_of(ver, given)
        return v >= upper if given < 3 and upper else v > ver
    if op == "<=":
        upper = upper_of(ver, given)
        return v < upper if given < 3 and upper else v <= ver
    if op == "<":
        return v < ver
    if op == "^":
        first = next((i for i, p in enumerate(ver) if p != 0), min(given, 3) - 1 if given else 0)
        bump = list(ver)
        bump[first] += 1
        for i in range(first + 1, 3):
            bump[i] = 0
        return ver <= v < tuple(bump)
    if op == "~":
        upper = upper_of(ver, min(given, 2) if given >= 2 else given)
        return v >= ver and (upper is None or v < upper)
    # '=' or a bare version: partial versions are ranges (6.* means 6.x.y)
    if given == 0:
        return True
    upper = upper_of(ver, given)
    return ver <= v < upper if given < 3 else v == ver


def satisfies(version, range_text):
    v, _ = parse_version(version)
    text = range_text.strip()
    for alternative in text.split("||"):
        alternative = re.sub(r"(>=|<=|>|<|=|\^|~)\s+", r"\1", alternative.strip())
        if alternative in ("", "*", "x"):
            return True
        hyphen = re.fullmatch(r"(\S+)\s+-\s+(\S+)", alternative)
        if hyphen:
            if comparator_ok(v, ">=" + hyphen.group(1)) and comparator_ok(v, "<=" + hyphen.group(2)):
                return True
            continue
        if all(comparator_ok(v, c) for c in alternative.split()):
            return True
    return False


def node_range(engines):
    """The node range of a lock-file engines entry (an object, or the old array form)."""
    if isinstance(engines, dict):
        return engines.get("node")
    if isinstance(engines, list):
        for e in engines:
            if isinstance(e, str) and e.strip().startswith("node"):
                return e.strip()[len("node"):].strip()
    return None


def self_test():
    cases = [
        ("18.20.4", "^20.19.0 || >=22.12.0", False),  # vite 8, rolldown
        ("18.20.4", "^20.0.0 || ^22.0.0 || >=24.0.0", False),  # vitest 4
        ("18.20.4", ">=20", False),  # playwright-core 1.62+
        ("18.20.4", ">= 20.16.0", False),  # jsep 1.6
        ("18.20.4", "^18.0.0 || ^20.0.0 || >=22.0.0", True),
        ("18.20.4", "^16.20 || ^18.18 || >= 20.17", True),
        ("18.20.4", "^18.19.0 || >=20.6.0", True),
        ("18.20.4", "^18.21", False),
        ("18.20.4", "6.* || 8.* || >= 10.*", True),
        ("18.20.4", "4.x || >=6.0.0", True),
        ("18.20.4", "*", True),
        ("18.20.4", ">=14.16", True),
        ("18.20.4", "<18", False),
        ("18.20.4", "<=18", True),
        ("18.20.4", ">18", False),
        ("18.20.4", "~18.20.1", True),
        ("18.20.4", "~18.19", False),
        ("18.20.4", "16 - 18", True),
        ("18.20.4", "19 - 20", False),
        ("20.20.2", "^20.19.0 || >=22.12.0", True),
    ]
    bad = [(v, r, want) for v, r, want in cases if satisfies(v, r) != want]
    for v, r, want in bad:
        print(f"self-test: node {v} against {r!r} should be {want}")
    if node_range(["node >= 6.0"]) != ">= 6.0":
        bad.append("array form")
        print("self-test: the array form of engines is not read")
    return not bad


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    if len(argv) != 3:
        print(__doc__)
        return 2
    if not self_test():
        return 1
    node, root = argv[1], Path(argv[2])
    locks = sorted(p for p in root.rglob("package-lock.json")
                   if "node_modules" not in p.parts and not any(part.startswith("build") for part in p.relative_to(root).parts))
    if not locks:
        print(f"no package-lock.json under {root}")
        return 1
    refused = []
    checked = 0
    for lock in locks:
        data = json.loads(lock.read_text())
        for name, entry in data.get("packages", {}).items():
            rng = node_range(entry.get("engines"))
            if rng is None or "linux" not in entry.get("os", ["linux"]):
                continue  # no range, or a binding for another system (npm skips it here)
            checked += 1
            try:
                ok = satisfies(node, rng)
            except ValueError as e:
                refused.append(f"{lock.relative_to(root)}: {name or '(root)'}: cannot read its engines.node {rng!r}: {e}")
                continue
            if not ok:
                version = entry.get("version", "?")
                refused.append(f"{lock.relative_to(root)}: {name or '(root)'}@{version} needs node {rng}")
    for r in refused:
        print(r)
    print(f"{len(locks)} lock files, {checked} engines ranges against node {node}: "
          f"{'all accept it' if not refused else str(len(refused)) + ' refuse it'}")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
