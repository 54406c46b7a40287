"""Bot processes that serve many matches (protocol 2, harness/players/reuse.py), with real sandboxed bots.

The test bot ``tests/reuse_bots/memo`` remembers every hand it was dealt in any match of its process
and reports on stderr, per match, its process token, how many matches the process has begun, what it
found in /tmp, and whether it held a hand it had held before (it would know the deal).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from benchmarks.reuse_bench import GREEDY, bot_copies, plan_of, play
from harness.sandbox.bubblewrap import sandbox_available
from results.schema import TIMING_COLUMNS

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="needs the bubblewrap sandbox (root)")

HERE = Path(__file__).resolve().parent
MEMO = HERE / "reuse_bots" / "memo"
OLD_KIT = HERE / "reuse_bots" / "old_kit"
KIT = HERE.parent / "bots" / "kits" / "python" / "main.py"
LINE = re.compile(r"token=(\w+) match=(\d+) repeats=(\d+)")
START = re.compile(r"token=(\w+) match=(\d+) tmp=(\S*)")


def memo_folder(where: Path, name: str = "memo", args: tuple = (), fresh: bool = False) -> str:
    folder = where / name
    shutil.copytree(MEMO, folder)
    shutil.copy(KIT, folder / "kit.py")
    command = ", ".join(f'"{a}"' for a in ("python3", "main.py", *args))
    toml = f'name = "{name}"\nversion = "1.0"\ncommand = [{command}]\n'
    if fresh:
        toml += "fresh_process = true\n"
    (folder / "bot.toml").write_text(toml)
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return str(folder)


@pytest.fixture
def scratch(tmp_path):
    tmp_path.chmod(0o755)
    return tmp_path


def memo_reports(results: list, seat_label: str) -> dict:
    """match id -> (token, match number in its process, /tmp at its start, repeats) of the memo bot."""
    out = {}
    for r in results:
        seat = r.seating.index(seat_label)
        text = r.stderr.get(seat, "")
        start, end = START.search(text), ([None] + list(LINE.finditer(text)))[-1]
        out[r.id] = (start and start.group(1), start and int(start.group(2)), start and start.group(3),
                        end and int(end.group(3)))
    return out


def faults_of(results: list) -> list:
    return [(r.id, row["termination"]) for r in results for row in r.matches
            if row.get("termination") not in (None, "complete")]


def test_a_memorising_bot_never_sees_a_deal_twice_across_rotations_and_variants(scratch):
    folder = memo_folder(scratch)
    plan = plan_of([folder, "builtin:greedy"], deal_sets=3, players=2,
                   vary=[("threshold", [51, 61])], overrides={"rounds": 2})
    label = next(b["label"] for b in plan["bots"] if b["kind"] != "builtin")
    results = play(plan)
    assert len(results) == 12 and not faults_of(results)  # 2 variants x 3 deal sets x 2 rotations
    seen = memo_reports(results, label)
    assert all(rep == 0 for _, _, _, rep in seen.values()), seen
    assert max(n for _, n, _, _ in seen.values()) == 3  # processes did serve several matches: 3 deal sets
    assert all(tmp == "" for _, _, tmp, _ in seen.values()), "a match found what an earlier one left in /tmp"
    by_process: dict = {}
    for match_id, (token, _, _, _) in seen.items():
        by_process.setdefault(token, []).append(plan_match(plan, match_id)["deal_seed"])
    assert all(len(seeds) == len(set(seeds)) for seeds in by_process.values()), by_process


def test_the_memorising_bot_would_notice_a_repeated_deal(scratch, monkeypatch):
    """The control of the test above: were every match's deals taken for new ones, the same process
    would be dealt the same hands again, and the bot says so."""
    import itertools

    from harness.players import reuse

    counter = itertools.count()
    monkeypatch.setattr(reuse, "deal_keys", lambda seed, deals=None: frozenset({("fake", next(counter))}))
    folder = memo_folder(scratch)
    plan = plan_of([folder, "builtin:greedy"], deal_sets=1, players=2, vary=[("threshold", [51, 61])],
                   overrides={"rounds": 2})
    label = next(b["label"] for b in plan["bots"] if b["kind"] != "builtin")
    seen = memo_reports(play(plan), label)
    assert any(rep for _, _, _, rep in seen.values()), seen


def plan_match(plan: dict, match_id: str) -> dict:
    return next(m for m in plan["matches"] if m["id"] == match_id)


def test_a_fault_gives_a_fresh_process_for_the_next_match(scratch):
    folder = memo_folder(scratch, args=("fault-second",))
    plan = plan_of([folder, "builtin:greedy"], deal_sets=3, players=2, overrides={"rounds": 1})
    label = next(b["label"] for b in plan["bots"] if b["kind"] != "builtin")
    results = play(plan)
    faults = faults_of(results)
    assert sorted(faults) == [("v0-d1-t0-r0", "protocol"), ("v0-d1-t0-r1", "protocol")], faults
    seen = memo_reports(results, label)
    faulty_tokens = {seen[m][0] for m, _ in faults}
    for rotation in (0, 1):
        token, number, tmp, _ = seen[f"v0-d2-t0-r{rotation}"]
        assert number == 1 and token not in faulty_tokens and tmp == ""


def test_cpu_limits_are_per_match_when_a_process_serves_several(scratch):
    """Each match spins 1.2 s under a 2 s limit: a process serving three matches has used 3.6 s, past
    what RLIMIT_CPU would allow for its life (2 s, killed at 3 s), and is not killed."""
    steady = memo_folder(scratch, "steady", args=("spin=1.2",))
    plan = plan_of([steady, "builtin:greedy"], deal_sets=3, players=2, overrides={"rounds": 1}, cpu_limit=2)
    label = next(b["label"] for b in plan["bots"] if b["kind"] != "builtin")
    results = play(plan, matches=[m for m in plan["matches"] if m["rotation"] == 0])
    assert not faults_of(results)
    seen = memo_reports(results, label)
    assert len({token for token, _, _, _ in seen.values()}) == 1  # one process served all three
    assert sorted(n for _, n, _, _ in seen.values()) == [1, 2, 3]


def test_a_bot_past_its_cpu_limit_in_one_match_is_killed(scratch):
    spinner = memo_folder(scratch, "spinner", args=("spin=3.5",))
    plan = plan_of([spinner, "builtin:greedy"], deal_sets=1, players=2, overrides={"rounds": 1}, cpu_limit=2)
    results = play(plan, matches=plan["matches"][:1])
    assert faults_of(results) == [(results[0].id, "crash")]
    assert "CPU limit" in str(results[0].matches)


def test_an_old_protocol_bot_still_plays_a_new_process_each_match(scratch):
    from harness.players.reuse import ProcessPool

    old = scratch / "old"
    shutil.copytree(OLD_KIT, old)
    for path in (old, *old.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    results, pool = run_with_pool([str(old), "builtin:greedy"], seeds=(1, 2, 3), enabled=True)
    assert all(not faults and result.reason == "complete" for result, faults, _ in results)
    assert isinstance(pool, ProcessPool) and pool.reused == 0 and not pool.waiting
    assert all(players[0].info["protocol"] == 1 for _, _, players in results)


def run_with_pool(bots: list, seeds: tuple, enabled: bool, players: int = 2):
    """Matches on ``seeds`` with one ProcessPool, as play_batch plays a task: (result, faults, players) each."""
    from engine.game import make_rules
    from harness.match.run import MatchSpec, make_players, run_spec
    from harness.protocol.messages import TimeControl
    from harness.players.reuse import ProcessPool

    rules = make_rules("ellibir", "standard", {"players": players, "rounds": 2})
    out = []
    with ProcessPool(enabled=enabled) as pool:
        for seed in seeds:
            spec = MatchSpec("ellibir", rules, seed, tuple(bots), time=TimeControl(5.0, 30.0, 20.0))
            ps = make_players(spec, pool=pool)
            result, _, faults = run_spec(spec, players=ps)
            out.append((result, faults, ps))
    return out, pool


def test_results_are_identical_with_reuse_on_and_off_for_deterministic_bots():
    with bot_copies(GREEDY, ["ga", "gb"]) as folders:
        plan = plan_of(folders, deal_sets=2, players=2, overrides={"rounds": 3})
        on, off = play(plan, reuse=True), play(plan, reuse=False)
        reused, pool = run_with_pool(folders, seeds=(5, 6), enabled=True)
    assert pool.reused == 2  # the second match was played by the first match's processes
    assert not faults_of(on)
    def same(r):  # every column but the decision times, which differ from one playing to the next
        return r.id, r.ranks, [{k: v for k, v in row.items() if k not in TIMING_COLUMNS} for row in r.matches], r.rounds

    assert [same(r) for r in on] == [same(r) for r in off]


def test_one_process_never_serves_two_seats_and_fresh_process_bots_are_never_kept(scratch):
    folder = memo_folder(scratch)
    results, pool = run_with_pool([folder, folder], seeds=(11, 12, 13), enabled=True)
    tokens = []
    for _, faults, players in results:
        assert not faults
        pair = [START.search(p.stderr).group(1) for p in players]
        assert pair[0] != pair[1]
        tokens.append(pair)
    assert pool.reused == 4 and set(tokens[1]) == set(tokens[0])
    fresh = memo_folder(scratch, "fresh", fresh=True)
    _, pool = run_with_pool([fresh, "builtin:greedy"], seeds=(11, 12), enabled=True)
    assert pool.reused == 0 and not pool.waiting


def test_new_match_carries_what_hello_does_and_no_match_id_or_seed():
    from engine.game import make_rules
    from harness.protocol.messages import TimeControl, hello_message, new_match_message

    from test_protocol import schema_errors

    rules = make_rules("ellibir", "standard", {"players": 4})
    hello = hello_message(1, "ellibir", rules, 2, TimeControl(), 4096, 99)
    new = new_match_message(1, "ellibir", rules, 2, TimeControl(), 4096, 99)
    assert new["type"] == "new_match" and {**new, "type": "hello"} == hello
    assert not {"id", "match", "match_id", "seed", "deal_seed", "deals", "deal_set", "rotation"} & set(new)
    assert hello["protocol"] == 1 and hello["protocols"] == [1, 2]  # a protocol-1 bot reads protocol 1, as before
    assert not schema_errors("to_bot", new) and not schema_errors("to_bot", hello)


def test_the_uid_pool_counts_the_processes_a_task_keeps():
    from harness.players import reuse
    from harness.sandbox import slots as sandbox

    assert sandbox.KEPT_PER_CORE >= reuse.MAX_KEPT  # one task per core, each keeping at most MAX_KEPT


@pytest.mark.parametrize("preset,players,seed", [("standard", 4, 3), ("standard", 2, 8), ("tr-wiki", 3, 5)])
def test_the_cached_view_json_is_the_engines_on_every_request_of_a_match(preset, players, seed):
    """harness/protocol/viewjson.py builds requests' views faster; it must give what View.to_json gives."""
    from bots import make_bot
    from engine import new_match
    from engine.game import make_rules
    from harness.protocol.viewjson import ViewJson

    rules = make_rules("ellibir", preset, {"players": players})
    match = new_match("ellibir", rules, seed)
    bots = [make_bot("greedy", i, "ellibir") for i in range(players)]
    for i, b in enumerate(bots):
        b.start(i, rules)
    converters = [ViewJson() for _ in range(players)]
    checked = 0
    while not match.is_over:
        seat = match.to_move()
        view, legal = match.observe(seat), match.legal(seat)
        assert converters[seat](view) == view.to_json(history=False)
        match.apply(seat, bots[seat].decide(view, legal))
        checked += 1
    assert checked > 100


def test_the_runners_batches_hold_one_seating_across_deal_sets():
    """harness/runs/runner.py ``batches``: every match once, as many batches as consecutive slices would make,
    and each batch one rotation across distinct deal sets (a kept process serves one match per deal
    set) when the plan's deal sets fill whole batches."""
    from harness.runs.runner import MAX_BATCH, batches

    def plan_of_ids(deal_sets):
        return [{"id": f"v{v}-d{d}-r{r}", "variant": f"v{v}", "deal_set": d, "rotation": r}
                for v in range(2) for d in range(deal_sets) for r in range(4)]

    for slots in (1, 2, 8):
        plan = plan_of_ids(MAX_BATCH)
        tasks = batches(plan, slots)
        size = len(tasks[0])
        assert sorted(m["id"] for t in tasks for m in t) == sorted(m["id"] for m in plan)
        assert len(tasks) == -(-len(plan) // size) and size <= MAX_BATCH
        for task in tasks:
            assert len({(m["variant"], m["deal_set"]) for m in task}) == len(task)
            assert len({m["rotation"] for m in task}) == 1
    for deal_sets in (1, 7, MAX_BATCH + 5):  # a last window of fewer deal sets than a batch holds
        plan = plan_of_ids(deal_sets)
        resumed = [m for i, m in enumerate(plan) if i % 3]  # runs of uneven length (matches already stored)
        for matches in (plan, resumed):
            tasks = batches(matches, 2)
            assert sorted(m["id"] for t in tasks for m in t) == sorted(m["id"] for m in matches)
            assert len(tasks) == -(-len(matches) // len(tasks[0]))


def test_a_batch_of_the_runner_starts_each_bot_once(scratch):
    """Eight deal sets of two rotations, on one worker: batches of four matches, each one rotation of
    four deal sets, which one process of the memo bot serves whole (without ever seeing a deal twice)."""
    from harness.runs.runner import batches

    folder = memo_folder(scratch)
    plan = plan_of([folder, "builtin:greedy"], deal_sets=8, players=2, overrides={"rounds": 1})
    label = next(b["label"] for b in plan["bots"] if b["kind"] != "builtin")
    first = batches(plan["matches"], slots=1)[0]
    assert len(first) == 4 and len({m["deal_set"] for m in first}) == 4
    seen = memo_reports(play(plan, matches=first), label)
    assert len({token for token, _, _, _ in seen.values()}) == 1
    assert sorted(n for _, n, _, _ in seen.values()) == [1, 2, 3, 4] and not any(r for *_, r in seen.values())


AFTER_END = HERE / "reuse_bots" / "after_end"
AFTER_LINE = re.compile(r"after match_end: ([0-9.]+) s of CPU")


def after_end_folder(where: Path, mode: str) -> str:
    folder = where / mode
    shutil.copytree(AFTER_END, folder)
    shutil.copy(KIT, folder / "kit.py")
    (folder / "bot.toml").write_text(f'name = "{mode}"\nversion = "1.0"\ncommand = ["python3", "main.py", "{mode}"]\n')
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return str(folder)


def test_a_kept_process_is_frozen_from_match_end_on_and_gets_no_cpu_outside_its_matches(scratch):
    """A kept bot ran on after ``match_end`` until the harness froze it in closing the match, after the
    seats before it had closed (each given 0.2 s to exit): CPU counted in neither match's limit."""
    from engine.game import make_rules
    from harness.match.run import MatchSpec, make_players, run_spec
    from harness.players.reuse import ProcessPool

    linger, spin = after_end_folder(scratch, "linger"), after_end_folder(scratch, "spin")
    rules = make_rules("ellibir", "standard", {"players": 2, "rounds": 1, "max_turns": 20, "max_void_rounds": 1})
    stderr = []
    with ProcessPool() as pool:
        for seed in (11, 12):
            spec = MatchSpec("ellibir", rules, seed, (linger, spin))
            players = make_players(spec, pool=pool)
            _, _, faults = run_spec(spec, players=players)
            assert faults == []
            stderr.append(players[1].stderr)
        assert pool.reused == 1
    spent = [float(x) for x in AFTER_LINE.findall(stderr[1])]
    assert len(spent) == 1, stderr
    assert spent[0] < 0.05, f"{spent[0]} s of CPU between match_end and the next match"
