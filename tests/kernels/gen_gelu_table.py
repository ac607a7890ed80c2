#!/usr/bin/python3
"""Derives the float32 gelu table of kernels/scalar_math.h (TSR__K_GELUF)
and prints it as C (run with Debian's /usr/bin/python3, which has mpmath):

    /usr/bin/python3 tests/kernels/gen_gelu_table.py

For |x| = a below 4, gelu takes S(a) = a Phi(-a) = a erfc(a / sqrt2) / 2
from a polynomial of the interval of width 1/2 that holds a: k =
floor(2 a) picks row k (8 rows), and the polynomial's variable is u =
2 a - k - 1/2 (in [-1/2, 1/2), exact in float32), so S = c0 + c1 u +
c2 u^2 + u^3 Q(u). Row 0 takes u = 2 a instead (in [0, 1)) and has c0 =
0: S vanishes with a, and a polynomial about the row's middle would lose
S's relative precision near 0, which gelu of a small negative x (-S)
needs. Then gelu(x) is -S below 0 and x - S above. Each row holds c0, c1
and c2 in two words (high word first), then the further terms: the
kernel takes c0 + c1 u + c2 u^2 in two words, so that what it rounds
(u^3 Q(u), at most a twentieth of S in rows 0 to 5) moves the result by
a fraction of an ulp. Rows 6 and 7 (a from 3, where u^3 Q(u) grows to a
quarter of S) serve x above 0 only, where S is below a thousandth of the
result. The fits are Chebyshev's (row 0: of S / u, so that c0 is 0), of
degree 8. The printout gives the error relative to S of the table as the
kernel holds it, on a dense grid (tests/kernels/test_accuracy.c measures
gelu's own, the kernel's roundings included).
"""

import mpmath as mp

from gen_exp_log_coeffs import c_hex, round_to

mp.mp.prec = 200
TERMS = 9  # c0 .. c8
ROWS = range(8)


def s_of(a):
    return a * mp.erfc(a / mp.sqrt(2)) / 2


def fit(k):
    """The row's coefficients, lowest degree first, the function they fit
    and the range of u."""
    if k == 0:
        coeffs = mp.chebyfit(lambda u: s_of(u / 2) / u, [0, 1], TERMS - 1)[::-1]
        return [mp.mpf(0)] + coeffs, lambda u: s_of(u / 2), 0, 1
    f = lambda u: s_of((k + mp.mpf(0.5) + u) / 2)
    return mp.chebyfit(f, [-0.5, 0.5], TERMS)[::-1], f, -0.5, 0.5


def two_words(c):
    h = round_to(c, 24) if c else mp.mpf(0)
    return [h, round_to(c - h, 24) if c != h else mp.mpf(0)]


def row(k):
    coeffs, f, lo, hi = fit(k)
    words = two_words(coeffs[0]) + two_words(coeffs[1]) + two_words(coeffs[2])
    words += [round_to(c, 24) for c in coeffs[3:]]
    held = [words[0] + words[1], words[2] + words[3], words[4] + words[5]] + words[6:]
    worst = 0
    for j in range(1, 2001):
        u = lo + (hi - lo) * mp.mpf(j) / 2000
        worst = max(worst, abs(mp.polyval(held[::-1], u) / f(u) - 1))
    return words, worst


def literal(v):
    text = c_hex(v, 24)
    return text if text.endswith("f") else text + "f"


def main():
    worst = [0, 0]  # rows 0 to 5, rows 6 and 7
    lines = []
    for k in ROWS:
        words, err = row(k)
        worst[k >= 6] = max(worst[k >= 6], err)
        lines.append("    " + ", ".join(literal(v) for v in words) + ",")
    print("/* TSR__K_GELUF: %d rows of c0, c1 and c2 in two words and %d more terms;"
          " error 2^%.1f of a Phi(-a) at most (rows 6 and 7: 2^%.1f) */"
          % (len(ROWS), TERMS - 3, float(mp.log(worst[0], 2)), float(mp.log(worst[1], 2))))
    print("#define TSR__K_GELUF_N %d" % (TERMS + 3))
    print("TSR__K_TABLE float tsr__k_geluf[] = {")
    print("\n".join(lines))
    print("};")
    return 0


if __name__ == "__main__":
    main()
