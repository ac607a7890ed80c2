#!/usr/bin/python3
"""Derives the tables of erf, erfc and gelu in kernels/scalar_math.h and
prints them as C (run with Debian's /usr/bin/python3, which has mpmath):

    /usr/bin/python3 tests/kernels/gen_erf_coeffs.py

  erf(x) = x + x * P(x^2) for |x| < 1/2:
           P(z) = erf(sqrt z) / sqrt z - 1, a Chebyshev fit on [0, 1/4].
  erfc(x) = exp(-x^2) * F(x) for x from 1/2 to where erfc underflows,
           F(x) = erfc(x) exp(x^2), smooth and slowly varying, fitted
           piecewise: on five intervals of x of width 1/2 from 1/2 to 3
           as a polynomial in s = x - m (m the interval's middle), and
           beyond 3 on four intervals of t = 1/x of width 1/12 as
           x F(x) = G(t), a polynomial in s = t - m (the caller divides
           by x).

Each interval is a row of the table: m, then the constant coefficient in
two words (its low word first, so that the rounding of the largest term
does not count), then the others from degree 1 up. The number of terms
is the same on every row of a type, the smallest whose fit error stays
far below the type's ulp (the printout says how far).
"""

import mpmath as mp

from gen_exp_log_coeffs import c_hex, round_to

mp.mp.prec = 200
SQRTPI = mp.sqrt(mp.pi)


def p_erf(z):
    if z < mp.mpf(2) ** -150:
        return 2 / SQRTPI - 1 - 2 * z / (3 * SQRTPI)
    s = mp.sqrt(z)
    return mp.erf(s) / s - 1


def f_erfc(x):
    return mp.erfc(x) * mp.exp(x * x)


# (variable, lo, hi): "x" rows fit F(m + s); "t" rows fit G(m + s) with
# G(t) = F(1 / t) / t, slightly widened so that the rounding of t = 1/x
# and of the interval's index stay inside.
ROWS = [("x", 0.5, 1.0), ("x", 1.0, 1.5), ("x", 1.5, 2.0), ("x", 2.0, 2.5), ("x", 2.5, 3.0),
        ("t", 0.035, 1 / 12), ("t", 1 / 12, 2 / 12), ("t", 2 / 12, 3 / 12), ("t", 3 / 12, 4 / 12)]
WIDEN = mp.mpf(2) ** -20


def row(kind, lo, hi, terms, bits):
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    m = round_to((lo + hi) / 2, bits)
    if kind == "x":
        f = lambda s: f_erfc(m + s)
    else:
        f = lambda s: f_erfc(1 / (m + s)) / (m + s)
        lo, hi = lo - WIDEN, hi + WIDEN
    coeffs, err = mp.chebyfit(f, [lo - m, hi - m], terms, error=True)
    coeffs = coeffs[::-1]
    c0h = round_to(coeffs[0], bits)
    c0l = round_to(coeffs[0] - c0h, bits)
    rest = [round_to(c, bits) for c in coeffs[1:]]
    rel = err / min(abs(f(lo - m)), abs(f(hi - m)))
    return [m, c0l, c0h] + rest, float(mp.log(rel, 2))


def table(name, ctype, terms, bits):
    worst = -1000
    lines = []
    for kind, lo, hi in ROWS:
        values, rel = row(kind, lo, hi, terms, bits)
        worst = max(worst, rel)
        lines.append("    " + ", ".join(c_hex(v, bits) for v in values) + ",")
    print("/* %s: %d rows of m, the constant in two words and %d more terms;"
          " fit error 2^%.1f of F at most */" % (name, len(ROWS), terms - 1, worst))
    print("#define %s_N %d" % (name, terms))
    print("TSR__K_TABLE %s %s[] = {" % (ctype, name.lower()))
    print("\n".join(lines))
    print("};")


def poly(name, terms, bits):
    coeffs, err = mp.chebyfit(p_erf, [0, mp.mpf(1) / 4], terms, error=True)
    coeffs = [round_to(c, bits) for c in coeffs[::-1]]
    print("/* %s: degree %d, fit error 2^%.1f of erf(x) / x */" % (
        name, terms - 1, float(mp.log(err / (mp.erf(mp.mpf(0.5)) * 2), 2))))
    for k, c in enumerate(coeffs):
        print("#define TSR__K_%s%d %s" % (name, k, c_hex(c, bits)))


def split(name, value, bits):
    hi = round_to(value, bits)
    lo = round_to(value - hi, bits)
    print("#define TSR__K_%s_HI %s" % (name, c_hex(hi, bits)))
    print("#define TSR__K_%s_LO %s" % (name, c_hex(lo, bits)))


def main():
    poly("ERFF_P", 6, 24)
    poly("ERFD_P", 10, 53)
    table("TSR__K_ERFCF", "float", 8, 24)
    table("TSR__K_ERFCD", "double", 15, 53)
    # gelu: sqrt(1/2) (the exact one's argument x / sqrt2), and for the
    # tanh form 2 sqrt(2 / pi) and 2 sqrt(2 / pi) * 0.044715 (PyTorch's
    # constants, exactly): 0.5 (1 + tanh(u)) = sigmoid(2u).
    for c, bits in (("F", 24), ("D", 53)):
        split(c + "_SQRT1_2", mp.sqrt(mp.mpf(1) / 2), bits)
        split(c + "_GELU_A", 2 * mp.sqrt(2 / mp.pi), bits)
        split(c + "_GELU_B", 2 * mp.sqrt(2 / mp.pi) * mp.mpf("0.044715"), bits)
    return 0


if __name__ == "__main__":
    main()
