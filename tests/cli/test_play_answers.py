"""What a person types at ``newmarket play``: the words shown are answers, and a refused answer says why."""

from __future__ import annotations

import subprocess
import sys

import pytest

from newmarket_env.describe.choices import Choices
from newmarket_env.describe.table import table_lines
from newmarket_env.describe.words import Names, count_text
from newmarket_env.engine import Decision, Game
from newmarket_env.game import actions as A
from newmarket_env.game.cards import card_from_text
from newmarket_env.game.rules import make_rules

NEWMARKET = make_rules("newmarket")


def cards(*texts):
    return [card_from_text(t) for t in texts]


@pytest.mark.parametrize(
    "decision,legal,rules,answer,expected",
    [
        (Decision.BUY, [A.KEEP, A.EXCHANGE], make_rules("newmarket", widow="dealer_buy"), "buy", A.EXCHANGE),
        (Decision.BUY, [A.KEEP, A.EXCHANGE], make_rules("newmarket", widow="dealer_buy"), "keep", A.KEEP),
        (Decision.WIDOW, [A.KEEP, A.EXCHANGE], make_rules("michigan"), "take", A.EXCHANGE),
        (Decision.WIDOW, [A.KEEP, A.EXCHANGE], make_rules("michigan"), "Take", A.EXCHANGE),
        (Decision.LEAD, cards("2C", "5D"), NEWMARKET, "lead 2C", card_from_text("2C")),
        (Decision.LEAD, cards("2C", "5D"), NEWMARKET, "lead  5d", card_from_text("5D")),
        (Decision.DISCARD, cards("2C", "5D"), make_rules("newbury"), "discard 5D", card_from_text("5D")),
        (
            Decision.STAKE,
            [A.STAKE_BASE + b for b in range(4)],
            make_rules("newmarket", stake_mode="choose"),
            "stake KH",
            A.STAKE_BASE + 1,
        ),
        (
            Decision.STAKE,
            [A.STAKE_BASE + b for b in range(4)],
            make_rules("newmarket", stake_mode="choose"),
            "QC",
            A.STAKE_BASE + 2,
        ),
        (Decision.BID, [A.PASS, A.bid_action(3), A.bid_action(4)], make_rules("michigan"), "bid 4", A.bid_action(4)),
    ],
)
def test_the_words_shown_are_accepted_as_answers(decision, legal, rules, answer, expected):
    assert Choices(legal, decision, rules).match(answer) == expected


def test_a_shared_first_word_is_not_a_guess():
    # Both choices start with "lead": the verb alone names neither.
    assert Choices(cards("2C", "5D"), Decision.LEAD, NEWMARKET).match("lead") is None


@pytest.mark.parametrize(
    "answer,reason",
    [
        ("", "an empty answer chooses nothing; type the number of a choice (1-2) or its words"),
        ("   ", "an empty answer chooses nothing"),
        ("9H", "'9H': 9H is in your hand but is not a lead allowed now (the lead rule is above the choices)"),
        ("lead 9h", "'lead 9h': 9H is in your hand but is not a lead allowed now"),
        ("KS", "'KS': you do not hold KS"),
        ("7", "'7' is not one of the choices; type its number (1-2) or its words"),
        ("bid 3", "'bid 3': there is no bid to make now"),
    ],
)
def test_a_refused_lead_says_why(answer, reason):
    choices = Choices(cards("2C", "5D"), Decision.LEAD, NEWMARKET, hand=cards("2C", "3C", "5D", "9H"))
    assert choices.match(answer) is None
    assert choices.why_not(answer).startswith(reason)


def test_a_bid_out_of_range_names_the_allowed_bids():
    legal = [A.PASS] + [A.bid_action(k) for k in range(6, 21)]
    choices = Choices(legal, Decision.BID, make_rules("michigan"))
    assert choices.why_not("bid 25") == "'bid 25' is not allowed: a bid now is 6..20 chips"
    assert choices.why_not("bid 2") == "'bid 2' is not allowed: a bid now is 6..20 chips"


def test_counts_agree_with_their_nouns():
    assert [count_text(n, "chip") for n in (0, 1, 2)] == ["0 chips", "1 chip", "2 chips"]
    # A table where seats hold 1 chip: 6 chips at the start, 5 of them staked (ante 1, boodles 4).
    game = Game(make_rules("newmarket", num_deals=1, starting_chips=6), seed=0)
    lines = table_lines(game, 0, Names(4, viewer=0))
    seats = [line for line in lines if line.startswith("  player_")]
    assert seats and all(" 1 chip" in line and "1 chips" not in line for line in seats)
    assert not any(" 1 cards" in line for line in lines)


def _play(args, answers):
    return subprocess.run(
        [sys.executable, "-m", "newmarket_env.cli", "play", *args],
        input=answers,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_take_answers_the_widow_through_a_pipe():
    done = _play(["--seed", "2", "--variant", "michigan", "--set", "num_deals=1"], "take\n" + "1\n" * 200)
    assert done.returncode == 0, done.stderr
    assert "you take the widow" in done.stdout


@pytest.mark.parametrize("where", ["/proc/newmarket-game.json", "FOLDER"])
def test_an_unwritable_save_path_stops_before_the_game(where, tmp_path):
    path = str(tmp_path) if where == "FOLDER" else where
    done = _play(["--seed", "1", "--set", "num_deals=1", "--save", path], "1\n" * 200)
    assert done.returncode == 2
    assert done.stderr.startswith(f"newmarket play: error: --save {path}: ") and done.stderr.count("\n") == 1
    assert "your choice" not in done.stdout  # nothing was played
