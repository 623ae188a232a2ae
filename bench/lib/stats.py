"""Match statistics, one implementation: W-L-D, score, Elo with its 95% interval, and
the SPRT's log-likelihood ratio.

Per-game scores are 1, 0.5 or 0 for the engine they are counted for.
"""
from __future__ import annotations

import math

Z975 = 1.959963984540054  # the 97.5% quantile of the standard normal


def elo_from_score(p: float) -> float:
    """Elo difference for an expected score p (logistic model): -400 log10(1/p - 1)."""
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / p - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_stats(scores: list[float]) -> dict:
    """Score, Elo and its 95% interval from per-game scores x_i in {0, 0.5, 1}.

    Formulas (n games):

        p     = (wins + draws / 2) / n                       the score fraction
        s^2   = (1/n) * sum_i (x_i - p)^2                    per-game score variance
        SE    = s / sqrt(n)                                   standard error of p
        p_lo  = p - 1.95996 * SE,  p_hi = p + 1.95996 * SE    95% normal interval
        Elo(q) = -400 * log10(1/q - 1)
        Elo   = Elo(p), interval [Elo(p_lo), Elo(p_hi)]       (ends outside (0, 1) -> -/+inf)

    When every game was lost (p = 0) or won (p = 1), SE is 0 and Elo is infinite; the
    finite end of the interval is then the exact binomial (Clopper-Pearson) bound for
    no wins: p_hi = 1 - 0.025**(1/n) (and symmetrically p_lo = 0.025**(1/n) for no
    losses), with draws counted as half a win as above.
    """
    n = len(scores)
    if n == 0:
        return {"n": 0}
    wins = sum(1 for x in scores if x == 1.0)
    losses = sum(1 for x in scores if x == 0.0)
    draws = n - wins - losses
    p = sum(scores) / n
    var = sum((x - p) ** 2 for x in scores) / n
    se = math.sqrt(var / n)
    if p == 0.0:
        lo, hi = 0.0, 1.0 - 0.025 ** (1.0 / n)
    elif p == 1.0:
        lo, hi = 0.025 ** (1.0 / n), 1.0
    else:
        lo, hi = p - Z975 * se, p + Z975 * se
    return {"n": n, "wins": wins, "losses": losses, "draws": draws, "score": p, "se": se,
            "p_lo": lo, "p_hi": hi, "elo": elo_from_score(p),
            "elo_lo": elo_from_score(lo), "elo_hi": elo_from_score(hi)}


def fmt_elo(x: float) -> str:
    if math.isinf(x):
        return "-inf" if x < 0 else "+inf"
    return f"{round(x) + 0:+d}"        # + 0: no "-0"


def score_summary(scores: list[float]) -> str:
    """One line: W-L-D, score, Elo and its 95% interval.

    >>> score_summary([1.0, 0.5, 0.0, 1.0])
    'games 4: +2 -1 =1, score 0.625, Elo +89 [95%: -221, +inf]'
    """
    s = elo_stats(scores)
    if not s["n"]:
        return "no game finished"
    return (f"games {s['n']}: +{s['wins']} -{s['losses']} ={s['draws']}, score {s['score']:.3f}, "
            f"Elo {fmt_elo(s['elo'])} [95%: {fmt_elo(s['elo_lo'])}, {fmt_elo(s['elo_hi'])}]")


def sprt_llr(scores: list[float], elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (Elo = elo1) against H0 (Elo = elo0), by the
    normal approximation on the per-game scores (the GSPRT of fishtest's trinomial
    model, in logistic Elo).  0 until the scores have some variance."""
    n = len(scores)
    if n < 2:
        return 0.0
    p = sum(scores) / n
    var = sum((x - p) ** 2 for x in scores) / n
    if var <= 0.0:
        return 0.0
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return (s1 - s0) * (2 * p - s0 - s1) / (2 * var / n)


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 below, H1 above."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt_decision(scores: list[float], elo0: float, elo1: float, alpha: float = 0.05,
                  beta: float = 0.05) -> str | None:
    """'H1' (the engine is better by elo1), 'H0' (not better than elo0) or None."""
    llr = sprt_llr(scores, elo0, elo1)
    lower, upper = sprt_bounds(alpha, beta)
    return "H1" if llr >= upper else "H0" if llr <= lower else None
