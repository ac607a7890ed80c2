#!/usr/bin/python3
"""Derives the constants of the trigonometric functions in
kernels/scalar_trig.h and prints them as C literals.

Run with any Python 3 that has mpmath (Debian's /usr/bin/python3 does):

    /usr/bin/python3 tests/kernels/gen_trig_coeffs.py

What it prints:

  pi/2 in four parts for Cody and Waite's reduction, x - k pi/2 =
    ((x - k P1) - k P2) - k P3 - k P4: P1 and P2 have few enough bits that
    k P1 and k P2 are exact for every k below 2^K (K = 20 for float64, 12
    for float32), P3 and P4 are rounded to the full width (k P3 is taken
    exactly with an fma, k P4 rounded);
  pi/2 in two words (PIO2_HI + PIO2_LO), which the reduction of large
    arguments multiplies its fraction by;
  the bits of 2/pi as 32-bit words, after two words of zeros (so that a
    window may start up to 64 bits before the binary point), as many as
    the largest float64 needs (bit 1161 past the point, and a word to
    read ahead);
  Chebyshev fits (mpmath.chebyfit, near-minimax) of what remains of sin
    and cos on |r| <= pi/4 once the exact leading terms are out, in
    z = r^2:
        sin(r) = r + r z S(z),          S(z) = (sin(r) - r) / r^3
        cos(r) = 1 - z/2 + z^2 C(z),    C(z) = (cos(r) - 1 + z/2) / z^2
  and, in z = t^2, of atan on |t| <= 7/16 and asin on |t| <= 1/2:
        atan(t) = t + t z A(z),         A(z) = (atan(t) - t) / t^3
        asin(t) = t + t z P(z),         P(z) = (asin(t) - t) / t^3
  atan(1/2) and pi/4 in two words (atan's reduction), pi in two words.
    The degrees are the smallest whose fit error, scaled to the result,
    stays far below half an ulp (the printout says how far); coefficients
    are rounded to nearest in the type they are used in.
"""

import mpmath as mp

from gen_exp_log_coeffs import c_hex, round_to

mp.mp.prec = 1400
PIO2 = mp.pi / 2
ZMAX = (mp.pi / 4) ** 2


def s_sin(z):
    if z < mp.mpf(2) ** -200:
        return -mp.mpf(1) / 6 + z / 120
    r = mp.sqrt(z)
    return (mp.sin(r) - r) / (r * z)


def c_cos(z):
    if z < mp.mpf(2) ** -200:
        return mp.mpf(1) / 24 - z / 720
    r = mp.sqrt(z)
    return (mp.cos(r) - 1 + z / 2) / (z * z)


def a_atan(z):
    if z < mp.mpf(2) ** -200:
        return -mp.mpf(1) / 3 + z / 5
    t = mp.sqrt(z)
    return (mp.atan(t) - t) / (t * z)


def p_asin(z):
    if z < mp.mpf(2) ** -200:
        return mp.mpf(1) / 6 + 3 * z / 40
    t = mp.sqrt(z)
    return (mp.asin(t) - t) / (t * z)


def fit(name, f, terms, bits, scale, zmax=ZMAX):
    with mp.workprec(200):
        coeffs, err = mp.chebyfit(f, [0, zmax], terms, error=True)
        coeffs = [round_to(c, bits) for c in coeffs[::-1]]  # lowest degree first
        print("/* %s: degree %d, fit error %s of the result (2^%.1f) */" % (
            name, terms - 1, mp.nstr(err * scale, 3), float(mp.log(err * scale, 2))))
    for k, c in enumerate(coeffs):
        print("#define TSR__K_%s%d %s" % (name, k, c_hex(c, bits)))


def pio2_split(name, bits, k_bits):
    short = bits - k_bits
    p1 = round_to(PIO2, short)
    p2 = round_to(PIO2 - p1, short)
    p3 = round_to(PIO2 - p1 - p2, bits)
    p4 = round_to(PIO2 - p1 - p2 - p3, bits)
    hi = round_to(PIO2, bits)
    lo = round_to(PIO2 - hi, bits)
    print("/* %s: k P1, k P2 exact for k < 2^%d; pi/2 - P1 - P2 - P3 - P4 = %s */" % (
        name, k_bits, mp.nstr(PIO2 - p1 - p2 - p3 - p4, 3)))
    for i, p in enumerate((p1, p2, p3, p4)):
        print("#define TSR__K_%s_PIO2_%d %s" % (name, i + 1, c_hex(p, bits)))
    print("#define TSR__K_%s_PIO2_HI %s" % (name, c_hex(hi, bits)))
    print("#define TSR__K_%s_PIO2_LO %s" % (name, c_hex(lo, bits)))
    print("#define TSR__K_%s_2OPI %s" % (name, c_hex(round_to(1 / PIO2, bits), bits)))


def two_over_pi_words(count):
    v = 2 / mp.pi
    words = [0, 0]
    for _ in range(count - 2):
        v *= 2 ** 32
        w = int(mp.floor(v))
        words.append(w)
        v -= w
    return words


def main():
    pio2_split("F", 24, 12)
    pio2_split("D", 53, 20)
    fit("SINF_S", s_sin, 4, 24, ZMAX)
    fit("SIND_S", s_sin, 7, 53, ZMAX)
    fit("COSF_C", c_cos, 4, 24, ZMAX ** 2 / mp.cos(mp.pi / 4))
    fit("COSD_C", c_cos, 6, 53, ZMAX ** 2 / mp.cos(mp.pi / 4))
    za, zs = (mp.mpf(7) / 16) ** 2, mp.mpf(1) / 4
    fit("ATANF_A", a_atan, 7, 24, za, za)
    fit("ATAND_A", a_atan, 13, 53, za, za)
    fit("ASINF_P", p_asin, 7, 24, zs, zs)
    fit("ASIND_P", p_asin, 14, 53, zs, zs)
    for name, bits in (("F", 24), ("D", 53)):
        for what, v in (("ATAN_HALF", mp.atan(0.5)), ("PIO4", mp.pi / 4), ("PI", mp.pi)):
            hi = round_to(v, bits)
            print("#define TSR__K_%s_%s_HI %s" % (name, what, c_hex(hi, bits)))
            print("#define TSR__K_%s_%s_LO %s" % (name, what, c_hex(round_to(v - hi, bits), bits)))
    words = two_over_pi_words(40)
    print("#define TSR__K_2OPI_WORDS %d" % len(words))
    print("#define TSR__K_2OPI_TABLE \\")
    for i in range(0, len(words), 6):
        row = ", ".join("0x%08Xu" % w for w in words[i:i + 6])
        print("    %s%s" % (row, "," if i + 6 < len(words) else ""), "\\" if i + 6 < len(words) else "")
    return 0


if __name__ == "__main__":
    main()
