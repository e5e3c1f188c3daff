"""``newmarket replay``'s reading and showing of records, checked piece by piece.

Files of every accepted form (one JSON record, gzipped, JSON lines of records or of tournament entries),
each refusal with its message, the pager's answers, the text of a deal and of the whole record, and
where :func:`first_difference` says a record and its replay part.
"""

from __future__ import annotations

import copy
import gzip
import json
import random

import pytest

from newmarket_env import env
from newmarket_env.game.rules import rules_from_dict
from newmarket_env.records.paging import _Pager, deal_lines, show_record
from newmarket_env.records.reading import check_record, load_session, read_records
from newmarket_env.records.verifying import _first_difference, first_difference


def _session(variant: str, seed: int, deals: int = 2, **overrides):
    e = env(variant=variant, num_deals=deals, **overrides)
    e.reset(seed=seed)
    game, rng = e.unwrapped.game, random.Random(seed)
    while not game.over:
        e.step(rng.choice(game.legal))
    return e.unwrapped.record()


@pytest.fixture(scope="module")
def records():
    return [_session("newmarket", 1), _session("michigan", 2)]


# ------------------------------------------------------------------------------------------ files
def test_one_record_plain_or_gzipped(tmp_path, records):
    plain, packed = tmp_path / "one.json", tmp_path / "one.json.gz"
    plain.write_text(json.dumps(records[0]))
    packed.write_bytes(gzip.compress(json.dumps(records[0]).encode()))
    for path in (plain, packed):
        record, rules = load_session(str(path))
        assert record == records[0] and rules == rules_from_dict(records[0]["rules"])
    assert read_records(plain.read_bytes(), "x") == [("x", records[0])]


def test_json_lines_of_records_or_tournament_entries(tmp_path, records):
    lines = "\n".join(json.dumps(r) for r in records) + "\n\n"  # a blank line is skipped
    assert read_records(lines.encode(), "f") == [("record 1", records[0]), ("record 2", records[1])]
    entries = [{"title": "block 0, line-up 1", "record": records[0]}, {"title": "", "record": records[1]}]
    text = "\n".join(json.dumps(e) for e in entries)
    assert read_records(gzip.compress(text.encode()), "f") == [
        ("block 0, line-up 1", records[0]),
        ("record 2", records[1]),
    ]
    path = tmp_path / "records.jsonl.gz"
    path.write_bytes(gzip.compress(text.encode()))
    assert load_session(str(path), 2)[0] == records[1]
    assert load_session(str(path), 1)[0] == records[0]


@pytest.mark.parametrize(
    "game, message",
    [
        (None, "{path} holds 2 records; pick one with --game K (1..2)"),
        (0, "--game 0: {path} holds records 1..2"),
        (3, "--game 3: {path} holds records 1..2"),
    ],
)
def test_picking_a_record_of_many(tmp_path, records, game, message):
    path = tmp_path / "two.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records))
    with pytest.raises(ValueError) as err:
        load_session(str(path), game)
    assert str(err.value) == message.format(path=path)


def test_a_single_record_may_be_picked_as_game_1(tmp_path, records):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(records[1]))
    assert load_session(str(path), 1)[0] == records[1]
    with pytest.raises(ValueError, match=r"--game 2: .* holds records 1\.\.1"):
        load_session(str(path), 2)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\x1f\x8bnot really gzip", "f is neither a JSON session record nor a gzipped one: "),
        (b"\xff\xfe\x00", "f is neither a JSON session record nor a gzipped one: "),
        (b"{not json", "f is not a JSON session record: "),
        (b'{"a": 1}\n{broken', "f is not a JSON session record: "),
    ],
)
def test_unreadable_data_is_named(data, message):
    with pytest.raises(ValueError) as err:
        read_records(data, "f")
    assert str(err.value).startswith(message)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"cannot read .*nothing\.json: No such file or directory"):
        load_session(str(tmp_path / "nothing.json"))


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda r: [1],
            "P is not a session record: it needs 'variant', 'rules' and 'deals' "
            "(save one with newmarket play --save FILE)",
        ),
        (
            lambda r: {k: v for k, v in r.items() if k != "deals"},
            "P is not a session record: it needs 'variant', "
            "'rules' and 'deals' (save one with newmarket play --save FILE)",
        ),
        (lambda r: {**r, "variant": "poker"}, "P: variant 'poker' is unknown; allowed: newmarket, michigan, newbury, "),
        (lambda r: {**r, "rules": [1]}, "P: 'rules' must be a mapping of rules parameters"),
        (lambda r: {**r, "deals": {}}, "P: every deal needs dealer, hands, dead, events, chips"),
        (
            lambda r: {**r, "deals": [{"dealer": 0, "hands": [], "dead": [], "events": []}]},
            "P: every deal needs dealer, hands, dead, events, chips",
        ),
    ],
)
def test_record_checks_name_the_problem(records, change, message):
    with pytest.raises(ValueError) as err:
        check_record(change(copy.deepcopy(records[0])), "P")
    assert str(err.value).startswith(message)


def test_a_record_with_exactly_the_needed_keys_is_accepted(records):
    record = {k: records[1][k] for k in ("variant", "rules", "deals")}
    assert check_record(record, "P") == rules_from_dict(records[1]["rules"])


def test_the_rules_of_a_record_are_checked_against_its_variant(records):
    """rules_from_dict is told the variant's player range: a 2-player michigan record is refused."""
    record = copy.deepcopy(records[1])
    record["rules"]["num_players"] = 2
    with pytest.raises(ValueError, match="num_players"):
        check_record(record, "P")


# ------------------------------------------------------------------------------------------ differences
def test_differences_in_mappings_lists_and_values():
    assert _first_difference({"a": 1}, {"a": 1}) is None
    assert _first_difference({"a": {"b": 1}}, {"a": {"b": 2}}) == "a.b: the record has 1, the replay gives 2"
    assert _first_difference({"a": 1, "x": 2}, {"a": 1}) == "x: missing from the replay"
    assert _first_difference({"a": 1}, {"a": 1, "y": 2}) == "y: missing from the record"
    assert _first_difference({"d": [{"k": 1}]}, {"d": [{}]}) == "d[0].k: missing from the replay"
    assert _first_difference([1, 2], [1, 2, 3]) == ": the record has 2 entries, the replay gives 3"
    assert _first_difference({"d": [1]}, {"d": [1, 2]}) == "d: the record has 1 entries, the replay gives 2"
    assert _first_difference({"d": [1, 2]}, {"d": [1, 3]}) == "d[1]: the record has 2, the replay gives 3"
    assert _first_difference({"d": [1]}, {"d": "1"}) == "d: the record has [1], the replay gives '1'"


def test_a_key_added_to_or_taken_from_a_record_is_named(records):
    record = copy.deepcopy(records[0])
    record["note"] = "edited"
    assert first_difference(record) == "note: missing from the replay"
    record = copy.deepcopy(records[0])
    del record["num_players"]
    assert first_difference(record) == "num_players: missing from the record"


@pytest.mark.parametrize("which", ["first", "last"])
def test_the_first_and_the_last_decision_are_located(records, which):
    """The bisection's ends: an illegal first decision, and an illegal last one."""
    record = copy.deepcopy(records[1])
    places = [(d, k) for d, deal in enumerate(record["deals"]) for k, e in enumerate(deal["events"]) if "action" in e]
    j = 0 if which == "first" else len(places) - 1
    d, k = places[j]
    event = record["deals"][d]["events"][k]
    event["action"] = 99  # no action has this number
    found = first_difference(record)
    assert found.startswith(f"deals[{d}].events[{k}].action (decision {j + 1} of {len(places)}): action 99")


# ------------------------------------------------------------------------------------------ showing
def _pager(answers, step=True):
    asked, written = [], []

    def read(prompt):
        asked.append(prompt)
        if not answers:
            raise EOFError
        return answers.pop(0)

    return _Pager(step, read, written.append), asked, written


@pytest.mark.parametrize(
    "answer, goes_on", [("", True), ("next", True), ("q", False), (" Q ", False), ("quit", False), ("QUIT", False)]
)
def test_the_pager_answers(answer, goes_on):
    pager, asked, written = _pager([answer])
    assert pager.go_on() is goes_on
    assert asked == ["-- Enter: next deal, q: quit -- "] and written == []


def test_the_pager_stops_waiting_at_the_end_of_input():
    pager, asked, written = _pager([])
    assert pager.go_on() is True and written == [""]
    assert pager.go_on() is True and len(asked) == 1  # no further prompt
    pager, asked, _ = _pager(["q"], step=False)
    assert pager.go_on() is True and asked == []


def test_a_deal_is_told_in_full():
    record = _session("michigan", 3, deals=1)
    rules = rules_from_dict(record["rules"])
    deal = record["deals"][0]
    lines = deal_lines(0, record["deals"], rules, [rules.starting_chips] * 4)
    assert lines[0].startswith("==== deal 1 of 1 ==== dealer: player_")
    assert lines[-1] == "" and lines[-2].startswith("chips after deal 1: ")
    # Every hand, then the dead hand, each on its own line, in the rules' card order (aces high here).
    assert [line.split()[0] for line in lines[1:5]] == ["player_0", "player_1", "player_2", "player_3"]
    assert lines[5].startswith("  dead hand ")
    result = lines.index("---- deal 1 of 1: the result ----")
    assert all(line.startswith("  ") for line in lines[1:result])
    assert any(e["type"] == "play" for e in deal["events"])


def test_newbury_discards_are_shown_face_up():
    """The replay shows everything (reveal=True): the cards of each discard are named."""
    record = _session("newbury", 3, deals=1)
    rules = rules_from_dict(record["rules"])
    lines = deal_lines(0, record["deals"], rules, [rules.starting_chips] * 4)
    discards = [e for e in record["deals"][0]["events"] if e["type"] == "discard"]
    assert discards
    shown = " ".join(line for line in lines if " discards " in line)
    assert all(f"player_{e['seat']} discards " in shown and e["card"] in shown.split() for e in discards)
    assert not any(line.startswith("  dead hand") for line in lines)  # newbury's dead cards are the discards


def test_an_unfinished_deal_says_so():
    record = _session("michigan", 2)
    rules = rules_from_dict(record["rules"])
    deal = {**record["deals"][1], "chips": []}
    lines = deal_lines(1, [record["deals"][0], deal], rules, [0] * rules.num_players)
    assert lines[-2:] == ["deal 2 was not finished when the record was saved", ""]


@pytest.mark.parametrize("variant, aces", [("michigan", "high"), ("newmarket", "low")])
def test_the_whole_record_is_shown(variant, aces):
    record = _session(variant, 5, deals=2)
    rules = rules_from_dict(record["rules"])
    out: list[str] = []
    show_record(record, rules, step=False, read=None, write=out.append)
    assert out[0] == (
        f"session record: variant {variant}, {rules.num_players} players, 2 of 2 deal(s), "
        f"aces {aces}, boodles {' '.join(rules.boodles)}"
    )
    assert sum(line.startswith("==== deal ") for line in out) == 2
    start = rules.starting_chips
    final = record["deals"][-1]["chips"]
    assert out[-1].startswith(f"final balances (each started with {start}): ")
    # The second deal's footer counts from the first deal's chips, the final line from the start.
    second = next(line for line in out if line.startswith("chips after deal 2:"))
    assert (
        second
        == "chips after deal 2: "
        + deal_lines(1, record["deals"], rules, record["deals"][0]["chips"])[-2].split(": ", 1)[1]
    )
    assert all(str(c) in out[-1] for c in final)


def test_one_deal_alone_and_paging(records):
    record = records[1]
    rules = rules_from_dict(record["rules"])
    out: list[str] = []
    show_record(record, rules, step=True, read=lambda prompt: "", write=out.append, only=2)
    assert [line for line in out if line.startswith("==== deal")] == [deal_lines(1, record["deals"], rules, [0] * 4)[0]]
    assert not any(line.startswith("final balances") for line in out)
    footer = deal_lines(1, record["deals"], rules, record["deals"][0]["chips"])[-2]
    assert footer in out  # counted from the first deal's chips, though that deal was not shown
    asked: list[str] = []
    out = []
    show_record(record, rules, step=True, read=lambda p: asked.append(p) or "q", write=out.append)
    assert sum(line.startswith("==== deal") for line in out) == 1 and len(asked) == 1


def test_load_session_names_the_file_in_its_messages(tmp_path, records):
    broken, wrong = tmp_path / "broken.json", tmp_path / "wrong.json"
    broken.write_text("{oops")
    wrong.write_text(json.dumps({**records[0], "variant": "poker"}))
    with pytest.raises(ValueError, match=rf"^{broken} is not a JSON session record: "):
        load_session(str(broken))
    with pytest.raises(ValueError, match=rf"^{wrong}: variant 'poker' is unknown"):
        load_session(str(wrong))


def test_the_player_count_must_be_one_the_variant_allows():
    """Newbury is for exactly 4 players: a 5-player newbury record is refused though 5 suits other variants."""
    record = _session("newbury", 1, deals=1)
    record["rules"]["num_players"] = 5
    with pytest.raises(ValueError, match="num_players"):
        check_record(record, "P")
