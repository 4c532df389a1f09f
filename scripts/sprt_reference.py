#!/usr/bin/env python3
"""Reference log-likelihood ratios for the pentanomial GSPRT, for ferz-arena's unit tests.

Plain Python (no numpy/scipy) from the published formulas: Michel Van den Bergh, "Comments on
Normalized Elo" (https://www.cantate.be/Fishtest/normalized_elo_practical.pdf), section 1
(expected-score constraint, logistic Elo) and section 4.1 (t-value constraint, normalized Elo).
Each constrained maximum is checked against its Lagrange condition before it is used, so a
wrong root or a non-converged iteration fails loudly instead of producing a reference value.

    python3 scripts/sprt_reference.py
"""
import math

SCORES = [0.0, 0.25, 0.5, 0.75, 1.0]
NELO_PER_T = 800 / math.log(10)


def regularize(counts):
    return [c if c > 0 else 1e-3 for c in counts]


def root(f, lo, hi):
    # f decreasing from +inf at lo to -inf at hi
    for _ in range(300):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def stats(p):
    mu = sum(a * q for a, q in zip(SCORES, p))
    var = sum(q * (a - mu) ** 2 for a, q in zip(SCORES, p))
    return mu, var


def mle_score(phat, s):
    x = [a - s for a in SCORES]
    th = root(lambda t: sum(q * xi / (1 + t * xi) for q, xi in zip(phat, x)), -1 / max(x), -1 / min(x))
    p = [q / (1 + th * xi) for q, xi in zip(phat, x)]
    assert abs(sum(p) - 1) < 1e-9 and abs(stats(p)[0] - s) < 1e-9
    return p


def mle_t(phat, t):
    p = [0.2] * 5
    for _ in range(10000):
        mu, var = stats(p)
        sd = math.sqrt(var)
        phi = [a - 0.5 - t * sd / 2 * (1 + ((a - mu) / sd) ** 2) for a in SCORES]
        th = root(lambda x: sum(q * f / (1 + x * f) for q, f in zip(phat, phi)), -1 / max(phi), -1 / min(phi))
        new = [q / (1 + th * f) for q, f in zip(phat, phi)]
        done = max(abs(a - b) for a, b in zip(new, p)) < 1e-14
        p = new
        if done:
            break
    mu, var = stats(p)
    sd = math.sqrt(var)
    assert abs(sum(p) - 1) < 1e-9 and abs((mu - 0.5) / sd - t) < 1e-9
    # Lagrange: phat_i / p_i = lam + nu * dg/dp_i for g(p) = mu - 0.5 - t * sd.
    grad = [a - t * ((a - mu) ** 2) / (2 * sd) for a in SCORES]
    ratio = [q / r for q, r in zip(phat, p)]
    # least squares fit ratio ~ lam + nu * grad, residual must vanish
    n = len(grad)
    gm, rm = sum(grad) / n, sum(ratio) / n
    nu = sum((g - gm) * (r - rm) for g, r in zip(grad, ratio)) / sum((g - gm) ** 2 for g in grad)
    lam = rm - nu * gm
    assert max(abs(r - lam - nu * g) for g, r in zip(grad, ratio)) < 1e-6
    return p


def llr(counts, elo0, elo1, model):
    c = regularize(counts)
    n = sum(c)
    phat = [x / n for x in c]
    if model == "logistic":
        s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
        p0, p1 = mle_score(phat, s0), mle_score(phat, s1)
    else:
        t0, t1 = (math.sqrt(2) * e / NELO_PER_T for e in (elo0, elo1))
        p0, p1 = mle_t(phat, t0), mle_t(phat, t1)
    return n * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(phat, p0, p1))


CASES = [
    ([100, 800, 2000, 800, 100], 0.0, 5.0, "normalized"),
    ([90, 780, 2000, 820, 110], 0.0, 5.0, "normalized"),
    ([60, 700, 2050, 900, 150], 0.0, 2.0, "normalized"),
    ([0, 3, 10, 5, 2], 0.0, 10.0, "normalized"),
    ([100, 800, 2000, 800, 100], 0.0, 5.0, "logistic"),
    ([90, 780, 2000, 820, 110], -1.75, 0.25, "logistic"),
    ([0, 3, 10, 5, 2], 0.0, 10.0, "logistic"),
]

if __name__ == "__main__":
    for counts, e0, e1, model in CASES:
        print(f"{counts} elo0={e0} elo1={e1} {model}: LLR {llr(counts, e0, e1, model):.6f}")
