"""The few distribution functions the statistics need (normal, Student t, chi-square, F), from
``scipy.special``: importing ``scipy.stats`` costs about a second of CPU in every analysis command."""

from __future__ import annotations

from scipy import special


def norm_cdf(x):
    return special.ndtr(x)


def norm_ppf(q):
    return special.ndtri(q)


def t_cdf(x, df):
    return special.stdtr(df, x)


def t_sf(x, df):
    return special.stdtr(df, -x)


def t_ppf(q, df):
    return special.stdtrit(df, q)


def chi2_sf(x, df):
    return special.chdtrc(df, x)


def f_sf(x, dfn, dfd):
    return special.fdtrc(dfn, dfd, x)


__all__ = ["chi2_sf", "f_sf", "norm_cdf", "norm_ppf", "t_cdf", "t_ppf", "t_sf"]
