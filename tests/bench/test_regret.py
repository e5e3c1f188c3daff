"""eval.bench.regret: the decisions it collects, regret worked from hand-made truths, the command's table
and its one-line errors."""

import numpy as np
import pytest

from newmarket_env import raw_env
from newmarket_env.engine.choice import compiled_available
from newmarket_env.engine.types import Decision
from newmarket_env.eval.bench.regret import Decisions, collect, main, regrets
from newmarket_env.observation.view import decode

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the truth search needs the compiled engine")


class _FirstLegal:
    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])


class _SecondLegal:
    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[1])


def test_collected_decisions_are_real_choices_without_stakes_or_bids():
    observations = collect(raw_env(variant="michigan", num_players=4), 60)
    assert len(observations) == 60
    for observation in observations:
        view = decode(observation)
        assert len(view.legal) >= 2 and view.decision not in (Decision.STAKE, Decision.BID)


def test_regret_is_the_truths_best_mean_minus_the_chosen_actions_mean():
    observations = collect(raw_env(variant="newmarket", num_players=4), 12)
    legal = [list(decode(o).legal) for o in observations]
    # hand-made truths: action k of a decision's legal list is worth k chips, so choosing the first legal
    # action (k = 0) regrets the last one's worth, len(legal) - 1
    truth = [np.arange(len(ids), dtype=float) for ids in legal]
    regret, seconds = regrets(_FirstLegal(), Decisions(observations, legal, truth))
    np.testing.assert_array_equal(regret, [len(ids) - 1 for ids in legal])
    assert seconds >= 0
    regret, _ = regrets(_SecondLegal(), Decisions(observations, legal, truth))
    np.testing.assert_array_equal(regret, [len(ids) - 2 for ids in legal])


def test_the_command_prints_search_first_then_each_agent(capsys):
    code = main(["--variant", "newmarket", "--agent", "greedy", "--decisions", "40", "--truth", "64", "--rounds", "1"])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "newmarket: 40 decisions, truth 64 worlds, 1 round(s)"
    rows = [line.split(" | ") for line in lines[3:]]
    assert [row[0] for row in rows] == ["| search", "| greedy"]
    assert rows[0][3] == "1.00 |"  # search against itself
    # greedy decides from a hand-written rule, search from 64 worlds: search regrets less against a longer search
    assert float(rows[0][1].split()[0]) < float(rows[1][1].split()[0])


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--agent", "wizard"], "--agent 'wizard' is not a saved-agent file nor a known agent: "),
        (["--decisions", "0"], "--decisions 0 is not allowed; allowed: 1 or more"),
        (["--truth", "0"], "--truth 0 is not allowed; allowed: 1 or more"),
        (["--agent-option", "search"], "--agent-option 'search' is not AGENT:KEY=VALUE"),
    ],
)
def test_bad_arguments_are_one_line_errors(capsys, arguments, message):
    with pytest.raises(SystemExit) as stop:
        main(arguments)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err.strip().splitlines()[-1]
