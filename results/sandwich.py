"""The covariance of a rating fit clustered by deal set: a sandwich on the same fit.

Each match's score (the gradient of its log-likelihood at the fit, ``row_scores`` of the fit's
designs in ``results.plackett_luce``) is summed per cluster (a (run, deal set)); the scatter of
those sums between clusters replaces the information the Hessian assumes, so matches of one deal
set may be correlated in any way (duplicate deals: copies that share a deal, mirrored rotations).

The scatter of G clusters is an estimate resting on the clusters that carry information. When
two bots split most deal sets evenly (twins, near-twins under duplicate deals), few clusters
differ from the others, the scatter rests on a handful of them, and when none differs it is 0: an
interval of no width. ``regularised_cov`` therefore adds what the model itself says (the inverse
Hessian, every match independent) with the weight of ``PRIOR_DEAL_SETS`` deal sets, as a prior
worth that many clusters: ((G−1)·sandwich + k·Hessian) / (G−1+k), with Student's t on G−1+k
degrees of freedom. Its weight fades as deal sets accumulate (k/(G−1+k)); with none that carries
information, what remains is k/(G−1+k) of the Hessian's variance, never 0. The coverage study of
``results.coverage`` chose k: the smallest whole number that kept every cell at 93% or more.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix

from .plackett_luce import Fit

PRIOR_DEAL_SETS = 4  # the weight of the model's own covariance, in deal sets (results.coverage)


def _cluster_codes(clusters) -> tuple[list, int]:
    """Each table's cluster labels as codes 0..G-1 shared across tables, and G."""
    arrays = [np.asarray(c) for c in clusters]
    if all(a.ndim == 1 and a.dtype.kind in "iu" for a in arrays) and sum(a.size for a in arrays):
        every = np.concatenate(arrays).astype(np.int64)
        low = int(every.min())
        seen = np.bincount(every - low) > 0
        dense = np.cumsum(seen) - 1
        return [dense[a.astype(np.int64) - low] for a in arrays], int(seen.sum())
    number: dict = {}
    codes = [np.array([number.setdefault(x, len(number)) for x in c], dtype=np.int64) for c in clusters]
    return codes, len(number)


def cluster_cov(model: Fit, clusters) -> tuple[np.ndarray, int]:
    """(covariance of the parameters clustered by ``clusters``, number of clusters G).

    The sandwich on the fit ``model``: H⁻¹ B H⁻¹, with H⁻¹ the fit's ``cov`` and B the scatter of the
    clusters' scores (the summed log-likelihood gradients of their matches, centred) times G/(G−1).
    Matches of one cluster may be correlated in any way (duplicate deals); clusters are taken as
    independent. ``clusters``: a hashable label per match given to ``fit`` (a list per table size,
    in the same order). With one cluster, B is 0."""
    one = len(model.row_of) == 1
    if isinstance(clusters, np.ndarray) or len(clusters) != len(model.row_of) or (one and np.ndim(clusters[0]) == 0):
        clusters = [clusters]
    codes, g = _cluster_codes(clusters)
    problem = model.problem
    theta, seats, by_size = problem.split(model.x)
    scores = np.zeros((g, problem.dim))
    for design, code, row in zip(problem.designs, codes, model.row_of):
        per_row = design.row_scores(theta, seats[design.n], by_size, problem.dim)
        member = coo_matrix((np.ones(len(row)), (code, row)), shape=(g, len(per_row))).tocsr()  # duplicates add
        scores += member @ per_row
    if g < 2:
        return np.zeros_like(model.cov), g
    centred = scores - scores.mean(axis=0)
    meat = g / (g - 1) * centred.T @ centred
    return model.cov @ meat @ model.cov, g


def regularised_cov(model: Fit, clusters, prior: float = PRIOR_DEAL_SETS) -> tuple[np.ndarray, int, float | None]:
    """(covariance, number of clusters G, degrees of freedom): the sandwich of ``cluster_cov`` and the
    fit's own covariance (the inverse Hessian) weighted as G−1 and ``prior`` clusters, with
    G−1+``prior`` degrees of freedom (see the module's docstring). With fewer than two clusters there
    is nothing between clusters to measure: the sandwich (0) and None degrees of freedom."""
    cov, g = cluster_cov(model, clusters)
    if g < 2:
        return cov, g, None
    return ((g - 1) * cov + prior * model.cov) / (g - 1 + prior), g, float(g - 1 + prior)


__all__ = ["PRIOR_DEAL_SETS", "cluster_cov", "regularised_cov"]
