"""A trained model as a bot folder, and the generation test (issue 28): a new V is accepted only when
the project's own SPRT, played as a gauntlet on duplicate deals, says that vgreedy with it beats
vgreedy with the model it would replace.

``write_bot(out)`` makes ``OUT/bot``: a protocol bot (``bot.toml``, ``main.py``) that runs vgreedy
through bots/serve.py with the weights beside it (``--weights``, checked by their hash when the bot
starts). Any tournament can name that folder. ``generation_test`` plays the gauntlet ``OUT/bot``
against three copies of ``against`` (by default ``builtin:vgreedy``, the shipped model for the
rules) with ``--sprt`` into ``OUT/sprt``, stops when the test decides, resumes a run cut short, and
adds the verdict to the model card.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from results.numbers import fixed, many

BOT_DIR = "bot"
SPRT_DIR = "sprt"
MAIN = '''"""vgreedy with the weights beside this file (value.json), behind the protocol loop of bots/serve.py.
Written by ellibir train value."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.isfile("/ellibir/bots/serve.py"):  # in the sandbox the harness binds engine and bots here
    sys.path.insert(0, "/ellibir")

from bots.serve import main  # noqa: E402

main(["vgreedy", "--weights=" + os.path.join(HERE, "value.json")] + sys.argv[1:])
'''


def write_bot(out: Path, weights: Path) -> tuple[Path, str]:
    """``OUT/bot``: vgreedy with ``weights`` as a protocol bot folder, versioned by the weights' hash;
    and that hash. A folder already holding the same model (a refit of the same data: the same weights,
    another card) is kept as it is, so that a test cut short resumes with the bot it began with."""
    folder = Path(out) / BOT_DIR
    new = json.loads(Path(weights).read_text())
    if (folder / "value.json").exists():
        old = json.loads((folder / "value.json").read_text())
        if _model(old) == _model(new):
            return folder, old["sha256"]
    sha256 = new["sha256"]
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(weights, folder / "value.json")
    (folder / "main.py").write_text(MAIN)
    (folder / "bot.toml").write_text(
        'name = "vgreedy-trained"\n'
        f'version = "{sha256[:12]}"\n'
        'command = ["python3", "main.py"]\n'
        'notes = "vgreedy with the weights in value.json (ellibir train value)."\n'
        'uses_engine = true\n')
    return folder, sha256


def _model(payload: dict) -> dict:
    """What decides a model's values: everything in its file but the card and the hash."""
    return {k: v for k, v in payload.items() if k not in ("card", "sha256")}


def generation_test(config, bot: Path, sha256: str) -> dict:
    """The SPRT of ``bot`` (with the weights of hash ``sha256``) against ``config.against``, at most
    ``config.sprt`` deal sets, in OUT/sprt (resumed when it holds this test); returns the test's state
    (``results.sprt``'s fields)."""
    from .options import make_config
    from .tournament import execute, load_run, prepare

    run_dir = Path(config.out) / SPRT_DIR
    if (run_dir / "run.json").exists():
        plan, new = load_run(run_dir), False
        challenger = plan["bots"][0]
        if (challenger.get("folder"), challenger.get("version"), plan["deal_sets"], plan["bots"][1]["label"]) != (
                str(bot.resolve()), sha256[:12], config.sprt, config.against):
            raise ValueError(f"{run_dir} holds another test (other weights, field or deal sets); remove it to test these")
    else:
        overrides = {"players": 4, "rounds": 3, **config.overrides}
        flags = {"format": "gauntlet", "challenger": str(bot), "bots": [config.against], "deal_sets": config.sprt,
                 "duplicate": True, "preset": config.preset, "set": overrides, "seed": config.seed,
                 "name": "generation", "out": str(run_dir), "sprt": True, "elo0": config.elo0, "elo1": config.elo1,
                 "executor": config.executor, "workers": config.workers, "address": config.address}
        plan, run_dir = prepare(make_config("tournament", flags))
        new = True
    outcome = execute(plan, run_dir, new=new, workers=config.workers, address=config.address,
                      executor=config.executor)
    if outcome.sprt is None:
        raise ValueError(f"the generation test in {run_dir} stopped before a deal set was whole")
    return outcome.sprt


def card_lines(result: dict, command: str) -> str:
    """The model card's section on the generation test, in words."""
    from results.sprt import elo_words, verdict_claim

    r = result
    claim = verdict_claim(r, "the new model", "the model it replaces")
    verdict = {"H1": f"accepted: {claim}", "H0": f"refused: {claim}",
               "continue": "no verdict within the deal sets allowed: not accepted"}[r["verdict"]]
    return ("\n## Generation test\n\n"
            f"vgreedy with these weights against {_names(r['vs'])}, every seat rotation of each deal, SPRT with "
            f"elo0 {r['elo0']:g}, elo1 {r['elo1']:g} (alpha {r['alpha']:g}, beta {r['beta']:g}):\n\n"
            f"- verdict: **{verdict}** (LLR {r['llr']:.2f}, bounds {r['lower']:.2f} and {r['upper']:.2f})\n"
            f"- the weights tested: `{r['bot']}` (the version is the start of their sha256)\n"
            f"- after {many(r['deal_sets'], 'deal set')} ({r['matches']} matches), Elo {elo_words(r, _elo)}\n"
            f"- command: `{command}`\n")


def _names(vs) -> str:
    return ", ".join(vs) if isinstance(vs, list) else vs


def _elo(value) -> str:
    return "—" if value is None else fixed(value, 0, True)


__all__ = ["BOT_DIR", "SPRT_DIR", "card_lines", "generation_test", "write_bot"]
