#!/usr/bin/env python3
"""Recomputes the exact avalanche scores of tests/data/mixers.json from first principles,
independently of mixforge (plain Python integers, its own reading of the statements), for
every entry up to --max-width bits (default 12: about a second; 20 takes minutes).

For each of the 2^n inputs x and each input bit i, counts for every output bit j whether
f(x) and f(x ^ 2^i) differ; A[i][j] = count / 2^n; chi2 = sum (A - 0.5)^2 / 0.5 and
bias = 1000 * sqrt(2 * chi2) / n. Exits 1 when a value differs from the file by more than
1e-9 relative, 0 otherwise.

--compiled: the 32-bit entries too, by a plain C loop this script writes from the entry's
statements (they are C on a uint32_t x) and compiles with the system's cc and OpenMP: for
every x and every input bit i with bit i of x clear, d = f(x) ^ f(x ^ 2^i), each set bit
of d counted twice (once for x, once for its partner). Minutes per function on 2 cores; exit
77 (skipped) without cc."""
import argparse, json, math, os, re, shutil, subprocess, sys, tempfile

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


C_LOOP = r"""
#include <stdint.h>
#include <stdio.h>
static inline uint32_t f(uint32_t x) {
STATEMENTS
  return x;
}
int main(void) {
  static unsigned long long counts[32][32];
#pragma omp parallel
  {
    unsigned long long mine[32][32] = {{0}};
#pragma omp for schedule(static)
    for (long long hi = 0; hi < 65536; ++hi)
      for (uint32_t lo = 0; lo < 65536; ++lo) {
        const uint32_t x = (uint32_t)hi << 16 | lo;
        const uint32_t fx = f(x);
        for (int i = 0; i < 32; ++i) {
          if (x >> i & 1) continue;
          const uint32_t d = fx ^ f(x ^ (uint32_t)1 << i);
          for (int j = 0; j < 32; ++j) mine[i][j] += d >> j & 1;
        }
      }
#pragma omp critical
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) counts[i][j] += 2 * mine[i][j];
  }
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) printf("%llu\n", counts[i][j]);
  return 0;
}
"""


def exact_scores_compiled(text, width):
    """The 32-bit path of --compiled: the counts from the C loop, the scores here."""
    assert width == 32, "the compiled loop is written for 32-bit entries"
    body = "\n".join("  " + line.strip() for line in text.strip().split("\n"))
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "loop.c"), os.path.join(d, "loop")
        with open(src, "w") as out:
            out.write(C_LOOP.replace("STATEMENTS", body))
        subprocess.run(["cc", "-O2", "-march=native", "-fopenmp", "-o", exe, src], check=True)
        counts = [int(v) for v in subprocess.run([exe], check=True, capture_output=True, text=True).stdout.split()]
    n = 1 << width
    chi2 = sum((c / n - 0.5) ** 2 / 0.5 for c in counts)
    return chi2, 1000 * math.sqrt(2 * chi2) / width


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-width", type=int, default=12)
    ap.add_argument("--compiled", action="store_true", help="also the 32-bit entries, by a compiled C loop")
    ap.add_argument("file", nargs="?", default=os.path.join(os.path.dirname(__file__), "mixers.json"))
    args = ap.parse_args()
    bad = checked = 0
    if args.compiled and not shutil.which("cc"):
        print("--compiled needs a C compiler (cc): skipped")
        return 77
    for r in json.load(open(args.file)):
        if args.compiled and r["width"] == 32:
            chi2, bias = exact_scores_compiled(r["text"], r["width"])
        elif r["width"] > args.max_width:
            continue
        else:
            chi2, bias = exact_scores(r["text"], r["width"])
        ok = math.isclose(chi2, r["chi2"], rel_tol=1e-9) and math.isclose(bias, r["bias"], rel_tol=1e-9)
        print(f"{'ok ' if ok else 'BAD'} {r['name']:<18} width {r['width']:2}  chi2 {chi2:.12g} (file {r['chi2']:.12g})")
        bad += not ok
        checked += 1
    print(f"{checked} functions checked, {bad} differ")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
