#!/usr/bin/python3
"""Derives the polynomial coefficients of exp and log in
kernels/scalar_math.h and prints them as C hexadecimal literals.

Run with any Python 3 that has mpmath (Debian's /usr/bin/python3 does):

    /usr/bin/python3 tests/kernels/gen_exp_log_coeffs.py

Each polynomial is a Chebyshev fit (mpmath.chebyfit, near-minimax) of the
smooth part that remains once the exact leading terms are taken out:

  exp(r) = 1 + r + r^2 * Q(r),   |r| <= ln2 / 2 (after r = x - k ln2):
           Q(r) = (exp(r) - 1 - r) / r^2

  log(1 + f) = f - (h - s * (h + z * P(z))), with s = f / (2 + f),
           h = f^2 / 2, z = s^2, |s| <= (sqrt2 - 1) / (sqrt2 + 1), from
           log(1 + f) = 2 atanh(s) = 2s + s * z * P(z):
           P(z) = (2 atanh(s) - 2s) / (s z)

The constants that the other functions multiply by are printed in two
words, HI rounded to nearest and LO the rest rounded (HI + LO is within
a few ulps of LO of the true value): ln2 for exp2 (r ln2 in two words),
1 / ln2 and 1 / ln10 for log2 and log10 (the log's two words times them).

expm1 and log1p use the same Q and P (expm1(r) = r + r^2 * Q(r), the
error scaled to the result staying as far below half an ulp).

The degrees are the smallest whose fit error, scaled to the result,
stays far below half an ulp (the printout says how far); the
coefficients are rounded to nearest in the type they are used in. The
float ones never meet a double: devices without float64 compute float32
the same way.
"""

import mpmath as mp

mp.mp.prec = 200
LN2 = mp.log(2)
SMAX = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)


def q_exp(r):
    if abs(r) < mp.mpf(2) ** -60:
        return mp.mpf(1) / 2 + r / 6
    return (mp.exp(r) - 1 - r) / r ** 2


def p_log(z):
    if z < mp.mpf(2) ** -120:
        return mp.mpf(2) / 3 + 2 * z / 5
    s = mp.sqrt(z)
    return (2 * mp.atanh(s) - 2 * s) / (s * z)


def round_to(x, bits):
    """x rounded to nearest with a `bits`-bit significand."""
    m, e = mp.frexp(x)
    return mp.ldexp(mp.nint(mp.ldexp(m, bits)), e - bits)


def c_hex(x, bits):
    """The C literal of x (already representable with `bits` bits)."""
    if x == 0:
        return "0x0p+0"
    sign = "-" if x < 0 else ""
    m, e = mp.frexp(abs(x))  # m in [0.5, 1)
    n = int(mp.ldexp(m, bits))  # integer significand, top bit set
    e -= bits
    frac_bits = bits - 1
    digits = (frac_bits + 3) // 4
    frac = (n - (1 << frac_bits)) << (4 * digits - frac_bits)
    text = "%s0x1.%0*xp%+d" % (sign, digits, frac, e + frac_bits)
    return text + ("f" if bits == 24 else "")


def fit(name, f, lo, hi, terms, bits, scale):
    coeffs, err = mp.chebyfit(f, [lo, hi], terms, error=True)
    coeffs = [round_to(c, bits) for c in coeffs[::-1]]  # lowest degree first
    print("/* %s: degree %d, fit error %s of the result (2^%.1f) */" % (
        name, terms - 1, mp.nstr(err * scale, 3), float(mp.log(err * scale, 2))))
    for k, c in enumerate(coeffs):
        print("#define TSR__K_%s%d %s" % (name, k, c_hex(c, bits)))


def ln2_split(name, bits, hi_bits):
    """ln2 = HI + LO + (a few ulps of LO): HI has hi_bits bits, so that
    k * HI is exact for every |k| < 2^(bits - hi_bits) (Cody and Waite's
    reduction); LOG2E is 1 / ln2 rounded."""
    hi = round_to(LN2, hi_bits)
    lo = round_to(LN2 - hi, bits)
    print("/* %s: ln2 - HI - LO = %s */" % (name, mp.nstr(LN2 - hi - lo, 3)))
    print("#define TSR__K_%s_LN2_HI %s" % (name, c_hex(hi, bits)))
    print("#define TSR__K_%s_LN2_LO %s" % (name, c_hex(lo, bits)))
    print("#define TSR__K_%s_LOG2E %s" % (name, c_hex(round_to(1 / LN2, bits), bits)))


def two_word(name, x, bits):
    """x = HI + LO + (a few ulps of LO): HI rounded to nearest, LO the
    rest rounded."""
    hi = round_to(x, bits)
    lo = round_to(x - hi, bits)
    print("/* %s: value - HI - LO = %s */" % (name, mp.nstr(x - hi - lo, 3)))
    print("#define TSR__K_%s_HI %s" % (name, c_hex(hi, bits)))
    print("#define TSR__K_%s_LO %s" % (name, c_hex(lo, bits)))


def main():
    ln2_split("F", 24, 16)
    ln2_split("D", 53, 42)
    for c, bits in (("F", 24), ("D", 53)):
        two_word(c + "_LN2W", LN2, bits)
        two_word(c + "_INVLN2", 1 / LN2, bits)
        two_word(c + "_INVLN10", 1 / mp.log(10), bits)
    fit("EXPF_Q", q_exp, -LN2 / 2, LN2 / 2, 6, 24, (LN2 / 2) ** 2 / mp.sqrt(0.5))
    fit("EXPD_Q", q_exp, -LN2 / 2, LN2 / 2, 11, 53, (LN2 / 2) ** 2 / mp.sqrt(0.5))
    fit("LOGF_P", p_log, 0, SMAX ** 2, 4, 24, SMAX ** 2 / 2)
    fit("LOGD_P", p_log, 0, SMAX ** 2, 8, 53, SMAX ** 2 / 2)
    return 0


if __name__ == "__main__":
    main()
