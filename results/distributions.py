"""The few distribution functions the statistics need (normal, Student t, chi-square, F), from
``scipy.special``: importing ``scipy.stats`` costs about a second of CPU in every analysis command,
and ``scipy.special`` itself about a third of one, so it is imported on first use, not by every
command that merely imports the statistics."""

from __future__ import annotations

import functools


@functools.cache
def _special():
    from scipy import special

    return special


def norm_cdf(x):
    return _special().ndtr(x)


def norm_ppf(q):
    return _special().ndtri(q)


def t_cdf(x, df):
    return _special().stdtr(df, x)


def t_sf(x, df):
    return _special().stdtr(df, -x)


def t_ppf(q, df):
    return _special().stdtrit(df, q)


def chi2_sf(x, df):
    return _special().chdtrc(df, x)


def f_sf(x, dfn, dfd):
    return _special().fdtrc(dfn, dfd, x)


__all__ = ["chi2_sf", "f_sf", "norm_cdf", "norm_ppf", "t_cdf", "t_ppf", "t_sf"]
