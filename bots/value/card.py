"""The generated section of a model card: what a weights file says of itself (its card, its rules, its
features and its hash), as Markdown lines for bots/value/weights/*.md."""

from __future__ import annotations

from engine import make_rules

from .model import rules_key

KINDS = {"linear": "ridge regression", "mlp": "a tanh network with one hidden layer"}


def card_section(payload: dict, name: str) -> str:
    card = payload.get("card", {})
    data = card.get("data", {})
    spec = data.get("spec", {})
    weights = sum(len(W) * len(W[0]) + len(b) for W, b in payload["layers"])
    products = len(payload.get("interactions") or [])
    lines = [
        f"## {name}",
        "",
        f"- file: `{name}`, sha256 `{payload.get('sha256', '')}`",
        f"- model: {KINDS.get(payload['kind'], payload['kind'])} on {len(payload['features'])} standardised features"
        + (f" and {products} products of two" if products else "") + f", {weights} weights; "
        + ", ".join(f"{k} {card[k]}" for k in ("ridge", "hidden", "epochs", "lr", "l2", "seed") if k in card),
        f"- fitted at commit {card.get('commit', 'unknown')} in {card.get('fit_cpu_seconds')} s CPU: "
        f"`{card.get('command', '')}`",
        f"- data: {data.get('games')} self-play matches, preset {spec.get('preset')}, fields {spec.get('overrides')}, "
        f"each seat drawn from {', '.join(spec.get('bots', []))}, noise {spec.get('noise')}, seed {spec.get('seed')}; "
        f"{card.get('rows')} play moments"
        + (f"; {card['play_cpu_seconds']} s CPU to play" if card.get("play_cpu_seconds") is not None else "")
        + (f"; Parquet {card['data_mb']} MB" if card.get("data_mb") is not None else ""),
        f"- the value bots' weights during self-play: "
        + ", ".join(f"`{k}` {v[:12]}" for k, v in sorted(data.get("weights", {}).items())),
        f"- held out ({card.get('holdout')}, {card.get('holdout_rows')} rows): R² {card.get('holdout_r2')}, "
        f"mean absolute error {card.get('holdout_mae_points')} points, AUC {card.get('holdout_win_auc')} "
        f"for the seat that goes out",
        f"- rules: {rules_text(payload.get('rules'))}",
        f"- features (version {payload['feature_version']}): " + ", ".join(f"`{f}`" for f in payload["features"]),
    ]
    return "\n".join(lines) + "\n"


def rules_text(rules: dict | None) -> str:
    """The rules a model was trained for, as the standard rules' fields it changes."""
    if rules is None:
        return "not recorded"
    standard = rules_key(make_rules())
    changed = [f"{k}={v}" for k, v in sorted(rules.items()) if standard.get(k) != v]
    return "standard" + (f" with {', '.join(changed)}" if changed else "")


__all__ = ["card_section", "rules_text"]
