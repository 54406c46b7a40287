"""The bot registry imports a bot's module only when it is asked for (issue 17: a protocol bot's start)."""

import subprocess
import sys
from pathlib import Path

import bots
from bots import builtin_bots, game_bots, make_bot

ROOT = Path(__file__).resolve().parent.parent


def test_the_lazy_registry_gives_the_classes_each_game_declares():
    from bots import einundfuenfzig

    lazy = builtin_bots("einundfuenfzig")
    assert dict(lazy) == {"random": einundfuenfzig.RandomBot, "cautious": einundfuenfzig.Cautious,
                          "mc": einundfuenfzig.MonteCarlo}
    assert game_bots("einundfuenfzig").reference == "cautious" and game_bots("ellibir").reference == "greedy"
    assert builtin_bots("ellibir")["greedy"] is bots.Greedy
    assert make_bot("mc:worlds=2").__class__ is bots.MonteCarlo


def test_serving_greedy_imports_neither_monte_carlo_nor_the_other_game():
    code = ("import sys, json\nfrom bots.serve import Client\n"
            "c = Client('greedy')\n"
            "r = c.handle({'type': 'hello', 'seq': 1, 'game': 'ellibir', 'rules': {}, 'seat': 0, 'protocols': [1, 2]})\n"
            "assert r['type'] == 'hello', r\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith(('bots', 'engine')))))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    loaded = set(out.split())
    assert "bots.greedy" in loaded
    assert not loaded & {"bots.mc", "bots.outs", "bots.einundfuenfzig", "bots.pairs", "engine.einundfuenfzig",
                          "engine.games.einundfuenfzig"}, loaded


def test_unknown_attribute_is_an_attribute_error():
    try:
        bots.NoSuchBot  # noqa: B018
    except AttributeError as e:
        assert "NoSuchBot" in str(e)
    else:
        raise AssertionError("bots.NoSuchBot resolved")
