"""A learned value of a position, V: its weights file, checked against this code, and its inference.

A weights file is JSON: the model's kind (``linear`` or ``mlp``), the feature names it was fitted
on, the feature version, the standardisation (``mean``, ``scale``), the weights, what it was trained
on (``card``) and ``sha256``, the hash of everything else in the file. ``load`` refuses, with one
line, a file whose hash does not match its contents, whose features are not this code's
``FEATURES``, or (for the files shipped in ``bots/value/weights/``) whose hash is not the one pinned
here. Inference uses numpy when it is importable and plain Python otherwise.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from .. import UnknownBot
from .features import FEATURE_VERSION, FEATURES

try:
    import numpy as np
except ImportError:  # a sandboxed interpreter without numpy: plain Python below
    np = None

WEIGHTS = Path(__file__).resolve().parent / "weights"
# The weights shipped with this code, by file name: the sha256 each must carry.
SHIPPED = {
    "standard.json": "bcf53fed234c7cbe07add3358bb7653959cd056d3f7929753c5ce3125bdbdeb3",
    "standard.g1.json": "d93f0b3d58fa40a6d987acd40c50915cccb3e54a5577b6876d207cd4eca30a1c",
    "standard-2p.json": "e5dd3c4600e1285acffa209aec6a2a4591620a4780b02f04e326a6f7f58b6d0b",
}


class WeightsError(UnknownBot):
    """A weights file this code must not use; the message is one line (the harness reports a bot that
    cannot be made this way)."""


def digest(payload: dict) -> str:
    """The sha256 of a weights payload (every field but ``sha256``), over its canonical JSON."""
    body = {k: v for k, v in payload.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def seal(payload: dict) -> dict:
    """``payload`` with its ``sha256``."""
    return {**{k: v for k, v in payload.items() if k != "sha256"}, "sha256": digest(payload)}


def save(payload: dict, path) -> str:
    sealed = seal(payload)
    Path(path).write_text(json.dumps(sealed, sort_keys=True, indent=1) + "\n")
    return sealed["sha256"]


def load(path) -> "Value":
    """The value model in ``path``; raises WeightsError (one line) when it does not match this code."""
    path = Path(path)
    return check(read(path), path.name)


def read(path: Path, what: str = "weights") -> dict:
    """The JSON payload of a sealed file; WeightsError (one line) when it cannot be read."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise WeightsError(f"{path.name}: cannot read the {what} ({e.__class__.__name__})") from None


def unchanged(payload: dict, name: str, pinned: str | None, what: str = "weights") -> None:
    """WeightsError (one line) unless ``payload`` matches its own hash and, when given, ``pinned``."""
    if payload.get("sha256") != digest(payload):
        raise WeightsError(f"{name}: the hash does not match the {what} (the file was changed)")
    if pinned is not None and payload["sha256"] != pinned:
        raise WeightsError(f"{name}: hash {payload['sha256'][:12]} is not the one this code ships ({pinned[:12]})")


def check(payload: dict, name: str = "weights") -> "Value":
    unchanged(payload, name, SHIPPED.get(name))
    if list(payload.get("features", ())) != list(FEATURES) or payload.get("feature_version") != FEATURE_VERSION:
        raise WeightsError(f"{name}: fitted on other features than this code computes "
                           f"(version {payload.get('feature_version')}, this code {FEATURE_VERSION})")
    return Value(payload)


def rules_key(rules) -> dict:
    """The rules fields a model is trained for: all but the length of a match and its safety bounds."""
    return {k: v for k, v in rules.normalised().items() if k not in MATCH_FIELDS}


MATCH_FIELDS = ("rounds", "max_void_rounds", "max_turns")
DEFAULT = "standard.json"


def for_rules(rules, generation: int = 0) -> "Value":
    """The shipped model trained on these rules (``rules_key``), or the standard one. Earlier
    generations of a model are shipped beside it as ``NAME.gK.json``; ``generation`` K picks one."""
    key = rules_key(rules)
    name = next((n for n in sorted(SHIPPED) if ".g" not in n and shipped(n).payload.get("rules") == key), DEFAULT)
    if generation:
        name = f"{name[:-len('.json')]}.g{generation}.json"
        if name not in SHIPPED:
            raise WeightsError(f"no generation {generation} of this model is shipped ({name})")
    return shipped(name)


def shipped(name: str) -> "Value":
    """A weights file shipped in ``bots/value/weights/``, loaded once per process."""
    if name not in _LOADED:
        _LOADED[name] = load(WEIGHTS / name)
    return _LOADED[name]


_LOADED: dict = {}


class Value:
    """V: rows of features -> the expected round margin (own score against the others' mean, in
    hundreds of points, higher is better)."""

    def __init__(self, payload: dict):
        self.payload = payload
        self.kind = payload["kind"]
        self.sha256 = payload["sha256"]
        self.mean = payload["mean"]
        self.scale = payload["scale"]
        self.layers = payload["layers"]  # [[W (rows = inputs), b], ...]; tanh between layers
        # products of two features, appended to the row before standardising (a quadratic model)
        index = {name: i for i, name in enumerate(FEATURES)}
        self.pairs = [(index[a], index[b]) for a, b in payload.get("interactions", ())]
        if np is not None:
            self._np = [(np.array(W, dtype=float), np.array(b, dtype=float)) for W, b in self.layers]
            self._mean = np.array(self.mean, dtype=float)
            self._scale = np.array(self.scale, dtype=float)

    def __call__(self, rows: list) -> list:
        if not rows:
            return []
        if np is not None:
            return self._numpy(rows)
        return [self._plain(r) for r in rows]

    def _numpy(self, rows: list) -> list:
        x = np.asarray(rows, dtype=float)
        if self.pairs:
            a, b = zip(*self.pairs)
            x = np.hstack([x, x[:, list(a)] * x[:, list(b)]])
        x = (x - self._mean) / self._scale
        last = len(self._np) - 1
        for i, (W, b) in enumerate(self._np):
            x = x @ W + b
            if i < last:
                x = np.tanh(x)
        return x[:, 0].tolist()

    def _plain(self, row: list) -> float:
        row = list(row) + [row[a] * row[b] for a, b in self.pairs]
        x = [(v - m) / s for v, m, s in zip(row, self.mean, self.scale)]
        last = len(self.layers) - 1
        for i, (W, b) in enumerate(self.layers):
            x = [sum(xi * wij for xi, wij in zip(x, col)) + bj for col, bj in zip(zip(*W), b)]
            if i < last:
                x = [math.tanh(v) for v in x]
        return x[0]


__all__ = ["DEFAULT", "SHIPPED", "WEIGHTS", "Value", "WeightsError", "check", "digest", "for_rules", "load", "rules_key",
           "save", "seal", "shipped"]
