"""The results layer: rows, the declared schema, append-only atomic parts, logs, and three readers."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.parquet as pq
import pytest

import results.store as store_mod
from bots import make_bot
from engine import make_rules, new_match
from engine.events import read_lines, replay, to_lines
from engine.game import GAMES, GameSpec, Match, MatchResult
from results.rows import match_rows, play_values, round_rows
from results.schema import MATCH_COLUMNS, PLAY_COLUMNS, ROUND_COMMON, SCHEMA_VERSION, SchemaError, columns
from results.store import PartExistsError, RunStore
from scenario import ok, start

ELLIBIR_ROUND_COLUMNS = [
    "opened", "open_method", "open_value", "open_turn", "declared", "star", "finish_G2", "finish_G3",
    "finish_G4", "multiplier", "pen_O4", "pen_A5", "cards_left", "left_value", "end",
]
BOTS = ("greedy", "pairs", "random", "greedy")


def _play(rules, seed):
    m = new_match("ellibir", rules, seed)
    bots = [make_bot(BOTS[i], f"{seed}:{i}") for i in range(rules.players)]
    for i, b in enumerate(bots):
        b.start(i, rules)
    while not m.is_over:
        s = m.to_move()
        out = m.apply(s, bots[s].decide(m.observe(s), m.legal(s)))
        if not out.accepted:
            bots[s].refused(out)
    return m


def _bots(n):
    return [{"label": f"builtin:{BOTS[i]}", "version": "1", "hash": f"h{i}"} for i in range(n)]


def _seats(n):
    """What the seats' bots did, as the harness measures it (results/rows.py play_values)."""
    return [play_values([0.0004, 0.003, 1.5], 1, None) for _ in range(n)]


def _task(run, rules, played, faults=None):
    """(matches, rounds, logs) of ``played``: a list of (match_id, deal_set, match)."""
    matches, rounds, logs = [], [], {}
    for match_id, deal_set, m in played:
        res = m.result()
        matches += match_rows(run, match_id, deal_set, "ellibir", rules, res, (faults or {}).get(match_id, []),
                              _bots(rules.players), _seats(rules.players))
        rounds += round_rows(run, match_id, deal_set, "ellibir", rules, res, _bots(rules.players))
        logs[match_id] = to_lines(m.events)
    return matches, rounds, logs


@pytest.fixture(scope="module")
def games():
    r4 = make_rules("standard", {"players": 4, "rounds": 2})
    r3 = make_rules("standard", {"players": 3, "rounds": 2, "exhausted": "score"})
    return {
        "r4": r4,
        "r3": r3,
        "a": [("m-0", 0, _play(r4, 0)), ("m-1", 1, _play(r4, 1))],
        "b": [("m-2", 0, _play(r3, 0))],
    }


def _store(tmp_path, games):
    st = RunStore(tmp_path / "run1")
    st.write_part("task-a", games["r4"], *_task("run1", games["r4"], games["a"]))
    st.write_part("task-b", games["r3"], *_task("run1", games["r3"], games["b"]))
    return st


def _sorted(rows, keys):
    return sorted(rows, key=lambda r: tuple(r[k] for k in keys))


def _three_readers(st, table, keys):
    folder = st.root / table
    by_polars = st.scan(table).sort(keys).collect().to_dicts()
    by_arrow = _sorted(pq.read_table(folder).to_pylist(), keys)
    con = duckdb.connect()
    cur = con.execute(f"SELECT * FROM read_parquet('{folder}/*.parquet') ORDER BY {', '.join(keys)}")
    names = [d[0] for d in cur.description]
    by_duckdb = [dict(zip(names, row)) for row in cur.fetchall()]
    con.close()
    return by_polars, by_arrow, by_duckdb


# Rows and the declared schema ------------------------------------------------------------------


def test_rows_have_the_declared_columns_in_order(games):
    r4 = games["r4"]
    _, _, m = games["a"][0]
    mrows = match_rows("run1", "m-0", 0, "ellibir", r4, m.result(), [], _bots(4), _seats(4))
    rrows = round_rows("run1", "m-0", 0, "ellibir", r4, m.result(), _bots(4))
    mcols = [c[0] for c in columns("matches", r4)]
    rcols = [c[0] for c in columns("rounds", r4)]
    assert mcols == [c[0] for c in MATCH_COLUMNS + PLAY_COLUMNS] + [f"rule_{f.name}" for f in dataclasses.fields(r4)]
    assert rcols == [c[0] for c in ROUND_COMMON] + ELLIBIR_ROUND_COLUMNS
    assert len(mrows) == 4 and all(list(r) == mcols for r in mrows)
    assert len(rrows) == 4 * len(m.records) and all(list(r) == rcols for r in rrows)
    assert mrows[0]["rule_pairs_openings"] == "[[4,1],[5,0]]"
    assert [r["total"] for r in mrows] == m.totals and all(r["termination"] == "complete" for r in mrows)
    assert sum(r["score"] for r in rrows if r["seat"] == 2) == m.totals[2]
    for r in rrows:
        rec = m.records[r["round_index"]]
        assert r["position"] == (4 if r["seat"] == rec["dealer"] else (r["seat"] - rec["dealer"]) % 4)
        assert r["won"] == (rec["winner"] == r["seat"])


def test_faults_give_termination_count_and_reason(games):
    @dataclasses.dataclass
    class Fault:  # the harness's Fault has these fields and more
        seat: int
        kind: str
        reason: str

    r4 = games["r4"]
    res = games["a"][0][2].result()
    faults = [Fault(1, "timeout", "no answer in 2 s"), {"seat": 1, "kind": "stalled", "reason": "again"},
              {"seat": 3, "kind": "crash", "reason": "exit 1"}]
    rows = match_rows("run1", "m-0", 0, "ellibir", r4, res, faults, _bots(4), _seats(4))
    assert [r["termination"] for r in rows] == ["complete", "timeout", "complete", "crash"]
    assert [r["faults"] for r in rows] == [0, 2, 0, 1]
    assert [r["fault_reason"] for r in rows] == [None, "no answer in 2 s", None, "exit 1"]


def _g4_match():
    """Seat 2 (the dealer) goes out all at once from pairs (G2, G4); seat 1 opened; seat 0 paid an O4 penalty."""
    m = start(["2H 3H 4H 5H 6H 7H 8H 9H 10H QC KC AC QD KD AD", "2S 3S 4S 5S 6S 7S 8S 9S 10S QH KH AH QS KS",
               "9C 9C 9D 9D 10C 10C 10D 10D 2C 3C 4C 5C 6C 7C"], dealer=2, top="QH JS AH QS")
    assert not m.apply_text(0, "open R[2H 3H 4H]; discard AD").accepted  # O1 refused: an O4 penalty
    ok(m, 0, "discard AD")
    ok(m, 1, "stock")
    ok(m, 1, "open R[2S 3S 4S 5S 6S 7S 8S 9S 10S]; discard QH")
    ok(m, 2, "stock")
    ok(m, 2, "pairs P[9C 9C] P[9D 9D] P[10C 10C] P[10D 10D] R[2C 3C 4C 5C 6C 7C]; discard JS")
    assert m.is_over
    return m


def test_ellibir_round_columns_of_a_round_won_from_pairs_all_at_once_G4():
    m = _g4_match()
    rows = round_rows("run1", "g4", 0, "ellibir", m.rules, m.result(), _bots(3))
    assert [r["position"] for r in rows] == [1, 2, 3] and [r["won"] for r in rows] == [False, False, True]
    lose0, lose1, win = rows
    assert (win["finish_G2"], win["finish_G3"], win["finish_G4"]) == (True, False, True)
    assert not any(r[f] for r in (lose0, lose1) for f in ("finish_G2", "finish_G3", "finish_G4"))
    assert win["open_method"] == "pairs" and win["declared"] and win["cards_left"] == 0 and win["score"] == -100
    assert (lose1["opened"], lose1["open_method"], lose1["open_value"], lose1["open_turn"]) == (True, "melds", 54, 2)
    assert (lose0["opened"], lose0["open_method"], lose0["open_value"], lose0["open_turn"]) == (False, None, None, None)
    assert lose0["pen_O4"] == 1 and lose0["pen_A5"] == 0 and lose1["pen_O4"] == 0
    assert lose0["cards_left"] == 14 and lose0["left_value"] == 105
    assert {r["multiplier"] for r in rows} == {2} and {r["end"] for r in rows} == {"out"}
    assert {(r["round_index"], r["round_number"], r["turns"], r["void"], r["dealer"]) for r in rows} == {(0, 1, 3, False, 2)}


def test_game_columns_survive_the_store(tmp_path):
    m = _g4_match()
    res = m.result()
    rows = round_rows("g4", "g4", 0, "ellibir", m.rules, res, _bots(3))
    st = RunStore(tmp_path / "g4")
    st.write_part("t", m.rules, match_rows("g4", "g4", 0, "ellibir", m.rules, res, [], _bots(3), _seats(3)), rows,
                  {"g4": to_lines(m.events)})
    back = st.scan("rounds").filter(pl.col("won")).collect().to_dicts()
    assert back == [rows[2]]
    assert st.scan("rounds").collect_schema()["finish_G4"] == pl.Boolean


# Writing and reading back ----------------------------------------------------------------------


def test_polars_pyarrow_and_duckdb_read_the_same_rows(tmp_path, games):
    st = _store(tmp_path, games)
    expected_m = _task("run1", games["r4"], games["a"])[0] + _task("run1", games["r3"], games["b"])[0]
    expected_r = _task("run1", games["r4"], games["a"])[1] + _task("run1", games["r3"], games["b"])[1]
    for table, keys, expected in (("matches", ["match_id", "seat"], expected_m),
                                  ("rounds", ["match_id", "round_index", "seat"], expected_r)):
        by_polars, by_arrow, by_duckdb = _three_readers(st, table, keys)
        assert by_polars == by_arrow == by_duckdb == _sorted(expected, keys)
    assert [p.name for p in st.parts("matches")] == ["task-a.parquet", "task-b.parquet"]
    assert [p.name for p in st.parts("rounds")] == ["task-a.parquet", "task-b.parquet"]
    assert [p.name for p in st.parts("logs")] == ["task-a.jsonl.gz", "task-b.jsonl.gz"]
    variants = st.scan("matches").group_by("variant").agg(pl.len()).sort("variant").collect()
    assert sorted(variants["variant"].to_list()) == sorted({games["r4"].variant_id, games["r3"].variant_id})


def test_schema_version_is_in_every_file_and_in_schema_json(tmp_path, games):
    st = _store(tmp_path, games)
    for table in ("matches", "rounds"):
        for part in st.parts(table):
            meta = pq.read_metadata(part).metadata
            assert meta[b"results.schema_version"] == str(SCHEMA_VERSION).encode()
            assert meta[b"results.table"] == table.encode() and meta[b"results.game"] == b"ellibir"
            assert meta[b"results.task"] == part.stem.encode()
            assert pq.read_schema(part).remove_metadata() == st.schema(table).remove_metadata()
    doc = json.loads((st.root / "schema.json").read_text())
    assert doc["schema_version"] == SCHEMA_VERSION and doc["game"] == "ellibir"
    assert [c["name"] for c in doc["tables"]["rounds"]][-len(ELLIBIR_ROUND_COLUMNS):] == ELLIBIR_ROUND_COLUMNS
    assert {c["name"]: c["type"] for c in doc["tables"]["rounds"]}["finish_G4"] == "bool"


def test_a_finished_part_is_never_rewritten(tmp_path, games):
    st = _store(tmp_path, games)
    part = st.path("matches", "task-a")
    before = part.read_bytes(), st.path("rounds", "task-a").read_bytes(), st.path("logs", "task-a").read_bytes()
    with pytest.raises(PartExistsError, match="task-a"):
        st.write_part("task-a", games["r4"], *_task("run1", games["r4"], games["a"][:1]))
    assert (part.read_bytes(), st.path("rounds", "task-a").read_bytes(),
            st.path("logs", "task-a").read_bytes()) == before
    with pytest.raises(PartExistsError):  # the move itself refuses too, should the check be raced
        store_mod._place(st.path("rounds", "task-b"), part)
    assert part.read_bytes() == before[0]


def test_a_match_stored_by_another_part_is_refused(tmp_path, games):
    st = _store(tmp_path, games)
    with pytest.raises(ValueError, match="already stored"):
        st.write_part("task-c", games["r4"], *_task("run1", games["r4"], games["a"][1:]))
    assert not st.path("matches", "task-c").exists()


def _visible(st, root):
    """Every file in the run folder, hidden ones included."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_a_crash_mid_write_leaves_no_part_and_no_partial_file(tmp_path, games, monkeypatch):
    st = RunStore(tmp_path / "run1")
    seen = []
    real = store_mod._fsync_file

    def crash(path):
        if Path(path).name.startswith(".schema"):
            return real(path)
        assert Path(path).exists() and Path(path).name.startswith(".")  # the temporary file is there
        seen.append(Path(path))
        raise OSError("disk gone")

    monkeypatch.setattr(store_mod, "_fsync_file", crash)
    with pytest.raises(OSError, match="disk gone"):
        st.write_part("task-a", games["r4"], *_task("run1", games["r4"], games["a"]))
    assert seen and not any(p.exists() for p in seen)
    assert _visible(st, st.root) == ["schema.json"]  # no part, no temporary file
    assert st.parts("matches") == [] and st.done_match_ids() == set()
    assert st.scan("matches").collect().height == 0 and st.scan("rounds").collect().height == 0
    monkeypatch.undo()
    st.write_part("task-a", games["r4"], *_task("run1", games["r4"], games["a"]))
    assert st.done_match_ids() == {"m-0", "m-1"}


def test_a_crash_between_moves_rolls_back_and_leftovers_are_never_read(tmp_path, games, monkeypatch):
    st = RunStore(tmp_path / "run1")
    real = store_mod._place

    def place(tmp, final):
        if final.parent.name == "matches":
            raise OSError("killed")
        real(tmp, final)

    monkeypatch.setattr(store_mod, "_place", place)
    with pytest.raises(OSError, match="killed"):
        st.write_part("task-a", games["r4"], *_task("run1", games["r4"], games["a"]))
    assert _visible(st, st.root) == ["schema.json"]
    monkeypatch.undo()

    # What a hard kill could leave: a temporary file and a task's rounds without its matches file.
    good = RunStore(tmp_path / "other")
    good.write_part("task-a", games["r4"], *_task("run1", games["r4"], games["a"]))
    st.path("rounds", "task-a").write_bytes(good.path("rounds", "task-a").read_bytes())
    (st.root / "matches" / ".task-a.matches.0123.tmp").write_bytes(b"PAR1 half a file")
    assert st.parts("rounds") == [] and st.scan("rounds").collect().height == 0
    assert pq.read_table(st.root / "matches").num_rows == 0  # pyarrow skips the hidden file
    con = duckdb.connect()
    with pytest.raises(duckdb.IOException):  # the glob matches nothing: no partial file is read
        con.execute(f"SELECT count(*) FROM read_parquet('{st.root}/matches/*.parquet')").fetchall()
    con.close()
    st.write_part("task-a", games["r4"], *_task("run1", games["r4"], games["a"]))  # replaces the leftover
    assert st.scan("rounds").collect().height == good.scan("rounds").collect().height


def test_done_match_ids_come_from_finished_parts(tmp_path, games):
    st = RunStore(tmp_path / "run1")
    assert st.done_match_ids() == set()
    st.write_part("task-a", games["r4"], *_task("run1", games["r4"], games["a"]))
    assert st.done_match_ids() == {"m-0", "m-1"}
    st.write_part("task-b", games["r3"], *_task("run1", games["r3"], games["b"]))
    assert RunStore(tmp_path / "run1").done_match_ids() == {"m-0", "m-1", "m-2"}  # a fresh reader agrees


def test_scan_before_any_part_is_empty_with_the_schema(tmp_path, games):
    st = RunStore(tmp_path / "nothing")
    assert st.scan("matches").collect().columns == [c[0] for c in MATCH_COLUMNS + PLAY_COLUMNS]
    st.declare(games["r4"])
    frame = st.scan("rounds").collect()
    assert frame.height == 0 and frame.columns == [c[0] for c in columns("rounds", games["r4"])]
    assert frame.schema["open_value"] == pl.Int16 and frame.schema["won"] == pl.Boolean


# Validation ------------------------------------------------------------------------------------


@pytest.mark.parametrize("table,change,message", [
    ("matches", lambda r: r.pop("rank"), r"missing columns \['rank'\]"),
    ("matches", lambda r: r.update(extra=1), r"unknown columns \['extra'\]"),
    ("matches", lambda r: r.update(total="12"), r"column 'total': expected a whole number \(int32\), got str"),
    ("matches", lambda r: r.update(rank=True), r"column 'rank': expected a whole number"),
    ("matches", lambda r: r.update(seat=40000), r"column 'seat': out of range for int16"),
    ("matches", lambda r: r.update(bot=None), r"column 'bot' \(string\) may not be null"),
    ("matches", lambda r: r.update(rule_partners=1), r"column 'rule_partners': expected true or false"),
    ("rounds", lambda r: r.update(won=1), r"column 'won': expected true or false"),
    ("rounds", lambda r: r.pop("finish_G4"), r"missing columns \['finish_G4'\]"),
    ("rounds", lambda r: r.update(end=3), r"column 'end': expected a string"),
])
def test_rows_that_do_not_fit_the_schema_are_refused_and_nothing_is_written(tmp_path, games, table, change, message):
    matches, rounds, logs = _task("run1", games["r4"], games["a"])
    change((matches if table == "matches" else rounds)[3])
    st = RunStore(tmp_path / "run1")
    with pytest.raises(SchemaError, match=f"{table} row 3: {message}"):
        st.write_part("task-a", games["r4"], matches, rounds, logs)
    assert not st.root.exists() or _visible(st, st.root) == []


def test_inconsistent_parts_and_other_games_are_refused(tmp_path, games):
    st = RunStore(tmp_path / "run1")
    matches, rounds, logs = _task("run1", games["r4"], games["a"])
    with pytest.raises(ValueError, match="logs of matches without match rows"):
        st.write_part("t", games["r4"], matches, rounds, {**logs, "nope": "{}\n"})
    with pytest.raises(ValueError, match="rounds of matches without match rows"):
        st.write_part("t", games["r4"], matches[:4], rounds, {})
    with pytest.raises(ValueError, match="task id"):
        st.write_part(".hidden", games["r4"], matches, rounds, logs)
    assert not st.root.exists()

    @dataclasses.dataclass(frozen=True)
    class OtherRules:
        players: int = 2
        game = "ellibir"

        def normalised(self):
            return {"players": self.players}

    st.write_part("t", games["r4"], matches, rounds, logs)
    with pytest.raises(SchemaError, match="refusing to mix schemas"):
        st.write_part("u", OtherRules(), [], [], {})


# Logs ------------------------------------------------------------------------------------------


def test_read_log_round_trip_and_replay(tmp_path, games):
    st = _store(tmp_path, games)
    for match_id, _, m in games["a"] + games["b"]:
        text = st.read_log(match_id)
        assert text == to_lines(m.events)
        again = replay(read_lines(text))
        assert again.result() == m.result()
    with gzip.open(st.path("logs", "task-a"), "rt") as f:
        first = json.loads(f.readline())
    assert first == {"match_id": "m-0", "lines": len(games["a"][0][2].events)}
    with pytest.raises(KeyError):
        st.read_log("m-9")


# A second game ---------------------------------------------------------------------------------


class CoinMatch(Match):
    """A made-up game: only its result and round records matter here."""

    game = "coin"
    ROUND_COLUMNS = {"heads": "int32", "lucky": "bool", "ratio": "float64"}

    @staticmethod
    def round_columns(record, seat):
        return {"heads": record["heads"][seat], "lucky": record["heads"][seat] > 1, "ratio": record["heads"][seat] / 2}


@dataclasses.dataclass(frozen=True)
class CoinRules:
    players: int = 2
    flips: int = 3
    game = "coin"

    def normalised(self):
        return dataclasses.asdict(self)

    @property
    def variant_id(self):
        return f"coin-{self.flips}"


def test_a_second_game_brings_its_own_columns(tmp_path, monkeypatch):
    monkeypatch.setitem(GAMES, "coin", GameSpec("coin", CoinMatch, CoinRules, round_columns=CoinMatch.ROUND_COLUMNS, round_values=CoinMatch.round_columns))
    rules = CoinRules()
    records = [{"index": i, "number": i + 1, "dealer": i % 2, "first": (i + 1) % 2, "turns": 3, "void": False,
                "winner": i % 2, "heads": [i, 2], "seats": [{"score": 1 - i}, {"score": 0}]} for i in range(2)]
    result = MatchResult("coin", [1, 0], [1, 2], records)
    st = RunStore(tmp_path / "coin")
    bots = [{"label": "a", "version": "", "hash": ""}, {"label": "b", "version": "", "hash": ""}]
    st.write_part("t0", rules, match_rows("coin", "c0", 0, "coin", rules, result, [], bots, _seats(2)),
                  round_rows("coin", "c0", 0, "coin", rules, result, bots), {})
    rounds = st.scan("rounds").sort("round_index", "seat").collect()
    assert rounds.columns == [c[0] for c in ROUND_COMMON] + ["heads", "lucky", "ratio"]
    assert rounds["heads"].to_list() == [0, 2, 1, 2] and rounds["lucky"].to_list() == [False, True, False, True]
    assert rounds["position"].to_list() == [2, 1, 1, 2] and rounds["won"].to_list() == [True, False, False, True]
    matches = st.scan("matches").collect()
    assert matches.columns[-2:] == ["rule_players", "rule_flips"] and matches["variant"].to_list() == ["coin-3"] * 2
    with pytest.raises(SchemaError, match="game"):
        round_rows("coin", "c0", 0, "ellibir", rules, result, bots)
