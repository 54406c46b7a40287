"""A run and its replication on fresh deals, compared: is each finding of the first run confirmed on
deals it was not found on?

A replication (``tournament run --replicate RUN``, ``sweep --replicate RUN``; harness/runs/replicate.py)
plays the same bots, rules and design as its first run on fresh deal seeds, and its plan names the
first run under ``replicates``. When both runs are analysed together (``ellibir balance RUN REPLICA``),
the pooled tables use every deal set of both, and this module checks the first run's findings on
the replica alone:

- ``pairs(runs)``: the (first, replica) runs among those pooled;
- ``findings(first_doc, replica_doc)``: every comparison the first run's balance document called a
  difference (``shown``) or a lead (``lead``, an exploratory figure), with the replica's figure on its
  own deal sets. The replica's p-values are adjusted by Holm among these findings only (they are the
  replication's planned questions): ``confirmed`` when the adjusted p is below 5% with the same
  sign, ``opposite`` when below 5% with the other sign, else ``not confirmed``. ``outside`` says the
  first run's figure lies outside the replica's 95% interval (it was probably too large, or too
  small): the figure to act on is then the pooled one, or the replica's;
- ``bots(first_doc, replica_doc)``: each bot's rating on each scale in both runs, and whether they
  agree (their difference within 1.96 standard errors of the two);
- ``replication(runs, ...)``: all of it per pair, as JSON-able dicts.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .runs import Runs
from .stats import adjust

LEVEL = 0.05
FINDINGS = ("shown", "lead")


def pairs(runs: Runs) -> list[tuple[int, int]]:
    """(index of the first run, index of its replica) for each replica pooled with the run it replicates."""
    where = {Path(d).resolve(): i for i, d in enumerate(runs.dirs)}
    out = []
    for j, plan in enumerate(runs.plans):
        link = (plan or {}).get("replicates") or {}
        try:
            i = where.get(Path(str(link.get("dir"))).resolve()) if link.get("dir") else None
        except (OSError, ValueError):
            i = None
        if i is None:  # the first run moved: found by its name and seed
            i = next((k for k, p in enumerate(runs.plans) if k != j and p and p.get("name") == link.get("run")
                      and p.get("seed") == link.get("seed")), None)
        if i is not None and i != j:
            out.append((i, j))
    return out


def one(runs: Runs, i: int) -> Runs:
    """The ``i``-th run of ``runs`` alone."""
    d = runs.dirs[i]
    return Runs(runs.game, [d], [runs.plans[i]], once=frozenset(x for x in runs.once if x == d))


def _verdict(c: dict) -> str:
    from .words import verdict

    return verdict(c)


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def findings(first_doc: dict, replica_doc: dict) -> list[dict]:
    """The first run's findings checked on the replica (see the module's docstring)."""
    labels = {v["variant"]: v["label"] for v in (first_doc.get("variants") or [])}
    again = {(c["a"], c["b"], c["metric"]): c for c in replica_doc.get("comparisons") or []}
    rows = []
    for c in first_doc.get("comparisons") or []:
        kind = _verdict(c)
        if c.get("same_as") or kind not in FINDINGS:
            continue
        r = again.get((c["a"], c["b"], c["metric"])) or {}
        rows.append({"a": c["a"], "b": c["b"], "a_label": labels.get(c["a"], c["a"]),
                     "b_label": labels.get(c["b"], c["b"]), "metric": c["metric"], "family": c.get("family"),
                     "first": {"verdict": kind, **{k: c.get(k) for k in ("diff", "lo", "hi", "n", "mean_a", "mean_b")}},
                     "replica": {k: r.get(k) for k in ("diff", "lo", "hi", "n", "p", "mean_a", "mean_b")}})
    p = [row["replica"]["p"] if _finite(row["replica"]["p"]) else float("nan") for row in rows]
    held = adjust(np.array(p, dtype=float), "holm") if rows else []
    for row, p_adj in zip(rows, held):
        first, rep = row["first"], row["replica"]
        rep["p_adj"] = float(p_adj) if _finite(float(p_adj)) else None
        same_sign = _finite(rep["diff"]) and _finite(first["diff"]) and np.sign(rep["diff"]) == np.sign(first["diff"])
        if rep["p_adj"] is not None and rep["p_adj"] < LEVEL:
            row["verdict"] = "confirmed" if same_sign else "opposite"
        elif rep.get("diff") is None:
            row["verdict"] = "not played"
        else:
            row["verdict"] = "not confirmed"
        row["outside"] = bool(_finite(rep.get("lo")) and _finite(rep.get("hi")) and _finite(first["diff"])
                              and not rep["lo"] <= first["diff"] <= rep["hi"])
    return rows


def bots(first_docs: list[dict], replica_docs: list[dict]) -> list[dict]:
    """Each bot's rating on each scale (``ratings_by_rules`` documents) in both runs, and whether the two
    agree within the error of their difference."""
    again = {d.get("key"): d for d in replica_docs if not d.get("error")}
    out = []
    for doc in first_docs:
        other = again.get(doc.get("key"))
        if doc.get("error") or other is None:
            continue
        theirs = {b["bot"]: b for b in other.get("bots") or []}
        for b in doc.get("bots") or []:
            r = theirs.get(b["bot"])
            if r is None or b.get("rating") is None or r.get("rating") is None or b["bot"] == doc.get("anchor"):
                continue
            se = [x.get("se") for x in (b, r)]
            agree = None
            if all(_finite(s) for s in se):
                spread = math.hypot(*se)
                agree = abs(b["rating"] - r["rating"]) <= 1.96 * spread if spread > 0 else b["rating"] == r["rating"]
            out.append({"scale": doc.get("label"), "bot": b["bot"],
                        "first": {k: b.get(k) for k in ("rating", "lo", "hi", "se")},
                        "replica": {k: r.get(k) for k in ("rating", "lo", "hi", "se")}, "agree": agree,
                        "anchor": doc.get("anchor")})
    return out


def replication(runs: Runs, balance_options: dict | None = None, reference: str | None = None,
                with_ratings: bool = True, with_balance: bool = True) -> list[dict]:
    """For each (first run, replica) pooled in ``runs``: ``first``, ``replica`` (run labels), ``findings``
    (``balance_options`` as ``balance`` takes them) and ``bots`` (ratings with ``reference`` at 1500);
    a part that cannot be computed has ``error`` instead."""
    from .balance import balance
    from .ratings import ratings_by_rules

    out = []
    for i, j in pairs(runs):
        entry = {"first": runs.names[i], "replica": runs.names[j]}
        a, b = one(runs, i), one(runs, j)
        if with_balance:
            try:
                entry["findings"] = findings(balance(a, **(balance_options or {})),
                                             balance(b, **(balance_options or {})))
            except ValueError as e:
                entry["findings_error"] = str(e).splitlines()[0]
        if with_ratings:
            try:
                entry["bots"] = bots(ratings_by_rules(a, reference=reference), ratings_by_rules(b, reference=reference))
            except ValueError as e:
                entry["bots_error"] = str(e).splitlines()[0]
        out.append(entry)
    return out


def finding_sentence(row: dict) -> str:
    """One finding of the first run and what its replica says, in words."""
    from .words import difference, subject

    what = subject(row["metric"])
    first = difference({"metric": row["metric"], **row["first"]})
    rep = row["replica"]
    if not _finite(rep.get("diff")) or not _finite(rep.get("lo")):
        again = "the replica has no figure for it" if rep.get("diff") is None else \
            f"the replica: {difference({'metric': row['metric'], **{**rep, 'lo': rep['diff'], 'hi': rep['diff']}})}"
    else:
        again = f"the replica: {difference({'metric': row['metric'], **rep})}"
    said = {"confirmed": "confirmed on new deals", "opposite": "reversed on new deals",
            "not confirmed": "not confirmed on new deals", "not played": "not played again"}[row["verdict"]]
    text = f"{what[:1].upper()}{what[1:]}, {row['b_label']} against {row['a_label']}: {said} (first run {first}; {again})"
    if row.get("outside"):
        text += "; the first run's figure lies outside the replica's interval: act on the pooled figure"
    return text + "."


__all__ = ["bots", "finding_sentence", "findings", "one", "pairs", "replication"]
