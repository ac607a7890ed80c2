#!/usr/bin/python3
"""Derives the float32 gelu table of kernels/scalar_math.h (TSR__K_GELUF)
and prints it as C (run with Debian's /usr/bin/python3, which has mpmath):

    /usr/bin/python3 tests/kernels/gen_gelu_table.py

For |x| = a from GELU_MID (45/64) to 5/2, gelu takes S(a) = a Phi(-a) =
a erfc(a / sqrt2) / 2 from a polynomial of the interval of width 1/4 that
holds a: k = floor(4 a) picks row k - 2, and the polynomial's variable is
u = 4 a - k - 1/2 (in [-1/2, 1/2), exact in float32), so S = c0 + c1 u +
u^2 Q(u). Then gelu(x) is -S below 0 and x - S above. Each row holds c0
and c1 in two words (high word first), then the further terms. The fit is
Chebyshev's, of degree 6: one more term no longer lowers the error, which
then comes from rounding the terms past c1 to float32. The printout gives
that error relative to S, of the table as the kernel holds it, on a dense
grid (tests/kernels/test_accuracy.c measures gelu's own, the kernel's
roundings included).
"""

import mpmath as mp

from gen_exp_log_coeffs import c_hex, round_to

mp.mp.prec = 200
TERMS = 7
ROWS = range(2, 10)


def s_of(a):
    return a * mp.erfc(a / mp.sqrt(2)) / 2


def row(k):
    lo = (mp.mpf(45) / 64 if k == 2 else mp.mpf(k) / 4) * 4 - k - mp.mpf(0.5)
    hi = mp.mpf(0.5)
    f = lambda u: s_of((k + mp.mpf(0.5) + u) / 4)
    coeffs, _ = mp.chebyfit(f, [lo, hi], TERMS, error=True)
    coeffs = coeffs[::-1]  # lowest degree first
    words = []
    for c in coeffs[:2]:
        h = round_to(c, 24)
        words += [h, round_to(c - h, 24)]
    words += [round_to(c, 24) for c in coeffs[2:]]
    held = [words[0] + words[1], words[2] + words[3]] + words[4:]
    worst = 0
    for j in range(2001):
        u = lo + (hi - lo) * j / 2000
        p = mp.polyval(held[::-1], u)
        worst = max(worst, abs(p / f(u) - 1))
    return words, worst


def main():
    worst = 0
    lines = []
    for k in ROWS:
        words, err = row(k)
        worst = max(worst, err)
        lines.append("    " + ", ".join(c_hex(v, 24) for v in words) + ",")
    print("/* TSR__K_GELUF: %d rows of c0 and c1 in two words and %d more terms;"
          " error 2^%.1f of a Phi(-a) at most */" % (len(ROWS), TERMS - 2,
                                                   float(mp.log(worst, 2))))
    print("#define TSR__K_GELUF_N %d" % (TERMS + 2))
    print("TSR__K_TABLE float tsr__k_geluf[] = {")
    print("\n".join(lines))
    print("};")
    return 0


if __name__ == "__main__":
    main()
