#!/usr/bin/env python3
"""Recomputes the exact avalanche scores of tests/data/mixers.json from first principles,
independently of mixforge (plain Python integers, its own reading of the statements), for
every entry up to --max-width bits (default 12: about a second; 20 takes minutes).

For each of the 2^n inputs x and each input bit i, counts for every output bit j whether
f(x) and f(x ^ 2^i) differ; A[i][j] = count / 2^n; chi2 = sum (A - 0.5)^2 / 0.5 and
bias = 1000 * sqrt(2 * chi2) / n. Exits 1 when a value differs from the file by more than
1e-9 relative, 0 otherwise."""
import argparse, json, math, os, re, sys

STATEMENT = [
    (re.compile(r"x \^= x >> (\d+)"), lambda x, k, m: x ^ (x >> k)),
    (re.compile(r"x \^= x << (\d+)"), lambda x, k, m: (x ^ (x << k)) & m),
    (re.compile(r"x \+= x << (\d+)"), lambda x, k, m: (x + (x << k)) & m),
    (re.compile(r"x -= x << (\d+)"), lambda x, k, m: (x - (x << k)) & m),
    (re.compile(r"x \*= (0x[0-9a-f]+)"), lambda x, c, m: (x * c) & m),
    (re.compile(r"x \+= (0x[0-9a-f]+)"), lambda x, c, m: (x + c) & m),
    (re.compile(r"x -= (0x[0-9a-f]+)"), lambda x, c, m: (x - c) & m),
    (re.compile(r"x \^= (0x[0-9a-f]+)"), lambda x, c, m: x ^ c),
]
ROTATE = re.compile(r"x = \(x << (\d+)\) \| \(x >> (\d+)\)")


def compile_text(text, width):
    mask = (1 << width) - 1
    steps = []
    for line in text.strip().split("\n"):
        s = line.strip().rstrip(";")
        r = ROTATE.fullmatch(s)
        if r:
            a, b = int(r.group(1)), int(r.group(2))
            assert a + b == width, line
            steps.append(lambda x, a=a, b=b: ((x << a) | (x >> b)) & mask)
            continue
        for pattern, op in STATEMENT:
            mt = pattern.fullmatch(s)
            if mt:
                v = int(mt.group(1), 0)
                steps.append(lambda x, op=op, v=v: op(x, v, mask))
                break
        else:
            raise ValueError(f"cannot read statement {line!r}")

    def f(x):
        for step in steps:
            x = step(x)
        return x

    return f


def exact_scores(text, width):
    f = compile_text(text, width)
    n = 1 << width
    out = [f(x) for x in range(n)]
    chi2 = 0.0
    for i in range(width):
        counts = [0] * width
        bit = 1 << i
        for x in range(n):
            d = out[x] ^ out[x ^ bit]
            j = 0
            while d:
                if d & 1:
                    counts[j] += 1
                d >>= 1
                j += 1
        chi2 += sum((c / n - 0.5) ** 2 / 0.5 for c in counts)
    return chi2, 1000 * math.sqrt(2 * chi2) / width


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-width", type=int, default=12)
    ap.add_argument("file", nargs="?", default=os.path.join(os.path.dirname(__file__), "mixers.json"))
    args = ap.parse_args()
    bad = checked = 0
    for r in json.load(open(args.file)):
        if r["width"] > args.max_width:
            continue
        chi2, bias = exact_scores(r["text"], r["width"])
        ok = math.isclose(chi2, r["chi2"], rel_tol=1e-9) and math.isclose(bias, r["bias"], rel_tol=1e-9)
        print(f"{'ok ' if ok else 'BAD'} {r['name']:<18} width {r['width']:2}  chi2 {chi2:.12g} (file {r['chi2']:.12g})")
        bad += not ok
        checked += 1
    print(f"{checked} functions checked, {bad} differ")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
