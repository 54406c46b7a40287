"""Fair clocks: the wall time a thinking bot needs per decision next to a bot whose children spin for
ever (each in a session of its own), against the same bot next to greedy. Off-turn bots are frozen,
so the aim is a ratio within 1.5."""

from __future__ import annotations

import statistics
from pathlib import Path

from engine.game import make_rules
from harness.match.run import MatchSpec, make_players, run_spec
from harness.protocol.messages import TimeControl
from harness.sandbox.bubblewrap import sandbox_available

FAIRPLAY = Path(__file__).resolve().parent.parent / "tests" / "fairplay"
THINK = 0.1


def _think_times(opponent: str, seed: int) -> list[float]:
    rules = make_rules("ellibir", "standard", {"players": 2, "rounds": 1})
    spec = MatchSpec("ellibir", rules, seed, (opponent, str(FAIRPLAY / "thinker")),
                     time=TimeControl(move=5.0, bank=10.0, first=10.0))
    players = make_players(spec)
    run_spec(spec, players=players)
    return [float(line.split()[1]) for line in players[1].stderr.splitlines() if line.startswith("think ")]


def victim_slowdown(matches: int = 2) -> dict | None:
    if not sandbox_available():
        return None
    alone, hogged = [], []
    for seed in range(matches):  # interleaved, so that the machine's mood affects both alike
        alone += _think_times("builtin:greedy", seed)
        hogged += _think_times(str(FAIRPLAY / "hog"), seed)
    a, h = statistics.median(alone), statistics.median(hogged)
    return {"alone_s": a, "hogged_s": h, "ratio": h / a}


def freeze_cost(rounds: int = 4, n: int = 1000) -> dict | None:
    """Round trips per second with a sandboxed echo bot, thawed before and frozen after each (as a bot
    is around its decisions), against the same without freezing; interleaved."""
    import time

    from harness.players.botproc import BotProcess

    from .protocol_bench import echo_folder

    if not sandbox_available():
        return None
    rates = {True: [], False: []}
    with echo_folder() as folder:
        bot = BotProcess(folder, ["python3", "bot.py"])
        bot.start()
        try:
            for _ in range(rounds):
                for freeze in (False, True):
                    start = time.perf_counter()
                    for _ in range(n):
                        bot.thaw()
                        bot.send({"type": "x", "seq": 0})
                        bot.receive(5.0)
                        if freeze:
                            bot.freeze()
                    rates[freeze].append(n / (time.perf_counter() - start))
        finally:
            bot.close()
    plain, frozen = statistics.median(rates[False]), statistics.median(rates[True])
    return {"plain": plain, "frozen": frozen, "cost_us": (1 / frozen - 1 / plain) * 1e6}
