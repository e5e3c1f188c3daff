"""guided_search's racing and prior weight: the elimination rule worked by hand, the C race against the Python
reference decision by decision, the network's weight, the per-world evaluation, and one-line errors."""

import numpy as np
import pytest

from newmarket_env import raw_env
from newmarket_env.engine.choice import compiled_available
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.view import decode

pytestmark = pytest.mark.skipif(not compiled_available(), reason="guided_search needs the compiled engine")

RULES = make_rules("newmarket", 4)


def _network(rules, favourite_last=False, seed=None):
    """A one-layer network: the lowest action id has the highest logit (the highest id with
    ``favourite_last``), or seeded random weights that make each observation's ranking its own."""
    from newmarket_env.agents.saved import SavedAgent

    if seed is not None:
        rng = np.random.default_rng(seed)
        weight = rng.normal(0, 1, size=(NUM_ACTIONS, FLAT_SIZE)).astype(np.float32)
        return SavedAgent(rules, 0, {"activation": "tanh"}, [(weight, np.zeros(NUM_ACTIONS, np.float32))])
    ids = np.arange(NUM_ACTIONS, dtype=np.float32)
    bias = ids if favourite_last else -ids
    return SavedAgent(rules, 0, {"activation": "tanh"}, [(np.zeros((NUM_ACTIONS, FLAT_SIZE), np.float32), bias)])


def _decisions(variant, sessions, seed=0):
    """Observations of the real choices (two or more legal actions, no stakes) in ``sessions`` sessions of
    ``control`` players."""
    from newmarket_env import load_agent
    from newmarket_env.engine.types import Decision

    aec = raw_env(variant=variant, num_players=4)
    found = []
    for session in range(sessions):
        aec.reset(seed=seed + session)
        seats = [load_agent("control", env=aec, seed=session * 4 + s) for s in range(4)]
        while not aec.game.over:
            seat = aec.game.to_act
            observation = aec.observe(f"player_{seat}")
            view = decode(observation)
            if len(view.legal) > 1 and view.decision is not Decision.STAKE:
                found.append({k: np.copy(v) for k, v in observation.items()})
            aec.step(seats[seat].act(observation))
    return aec.rules, found


class _Worlds:
    """Chip changes chosen by hand, handed out as ``CompiledSearch.evaluate_worlds`` would: the next rows of
    each requested action's column; records each request."""

    def __init__(self, table):
        self.table, self.used, self.requests = table, 0, []

    def evaluate_worlds(self, position, hand, unseen, dead_known, counts, candidates, budget):
        self.requests.append((list(candidates), budget))
        rows = self.table[self.used : self.used + budget]
        self.used += budget
        return np.array([[row[action] for action in candidates] for row in rows], dtype=float)


def _hand_race(table, bonus=(0.0, 0.0, 0.0), budget=8, round_worlds=4, z=2.0):
    from newmarket_env.agents.guided_search import GuidedSearchAgent

    agent = GuidedSearchAgent(
        RULES, 0, _network(RULES), budget=budget, rollout="control", racing_worlds=round_worlds, racing_z=z
    )
    agent._race_inputs = lambda view: (None, 0, 0, 0, [13, 13, 13])  # the hand-made worlds need no position
    agent._sampler = _Worlds(table)
    return agent.race_trace(None, [10, 11, 12], np.array(bonus))[0], agent._sampler.requests


# Chip changes of actions 10, 11, 12 in eight worlds. After the first four worlds:
# 10 - 11 is 1, 3, 1, 3: mean 2, sample sd sqrt(4/3), standard error sqrt(1/3) = 0.577; 2 > 2 x 0.577: 11 is out.
# 10 - 12 is 0, 0, 0, 1: mean 0.25, sd 0.5, standard error 0.25; 0.25 <= 2 x 0.25: 12 stays.
# Worlds 5-8 go to 10 and 12 only; over the eight worlds 10 - 12 is 0, 0, 0, 1, 3, 3, 3, 3: mean 1.625, sd 1.506,
# standard error 0.532; 1.625 > 1.065: 12 is out, and 10 wins before its budget of 12 worlds.
HAND_WORLDS = [
    {10: 1, 11: 0, 12: 1},
    {10: 3, 11: 0, 12: 3},
    {10: 1, 11: 0, 12: 1},
    {10: 3, 11: 0, 12: 2},
    {10: 3, 11: 9, 12: 0},
    {10: 3, 11: 9, 12: 0},
    {10: 3, 11: 9, 12: 0},
    {10: 3, 11: 9, 12: 0},
]


def test_a_rival_leaves_once_the_leaders_lead_is_beyond_z_standard_errors_worked_by_hand():
    winner, requests = _hand_race(HAND_WORLDS, budget=12)
    assert winner == 0
    assert requests == [([10, 11, 12], 4), ([10, 12], 4)]  # 11 left after the first round, 12 after the second


def test_a_looser_z_keeps_the_rivals_racing_to_the_budget():
    # z = 4: after round one 2 <= 4 x 0.577 keeps 11 and 0.25 <= 1 keeps 12; all three get the budget's eight
    # worlds and the best mean wins: 11 (4.5) over 10 (2.5) and 12 (0.875).
    winner, requests = _hand_race(HAND_WORLDS, z=4.0)
    assert requests == [([10, 11, 12], 4), ([10, 11, 12], 4)]
    assert winner == 1


def test_the_bonus_moves_the_lead_and_the_margins():
    # A bonus of 3 on action 12: its score is 1.75 + 3 = 4.75 against 10's 2 and 11's 0 after round one.
    # 12 - 10 per world is 0, 0, 0, -1 (se 0.25): margin 2.75 > 0.5, out; 12 - 11 is 1, 3, 1, 2 (se 0.479):
    # margin 4.75 > 0.957, out. 12 wins after one round.
    winner, requests = _hand_race(HAND_WORLDS, bonus=(0.0, 0.0, 3.0))
    assert (winner, requests) == (2, [([10, 11, 12], 4)])


def test_a_rival_equal_to_the_leader_in_every_world_leaves():
    same = [{10: w % 3, 11: w % 3 - 5, 12: w % 3} for w in range(8)]  # 12 plays out exactly as 10
    winner, requests = _hand_race(same)
    assert (winner, requests) == (0, [([10, 11, 12], 4)])


def test_the_last_round_is_cut_to_the_budget():
    close = [{10: w % 2, 11: (w + 1) % 2, 12: w % 2 - 9} for w in range(10)]  # 10 and 11 alternate: never apart
    winner, requests = _hand_race(close, budget=10)
    assert requests == [([10, 11, 12], 4), ([10, 11], 4), ([10, 11], 2)]
    assert winner == 0  # five wins each over ten worlds: the tie goes to the first candidate


@pytest.mark.parametrize("variant", ["newmarket", "michigan", "newbury"])
@pytest.mark.parametrize("prior, weight", [("network", 0.05), ("control", 0.0)])
def test_the_compiled_race_chooses_as_the_python_reference_decision_by_decision(variant, prior, weight):
    """Two agents of one seed, one racing in C and one in Python, over the real decisions of two sessions:
    the same winner every time, so the two also draw the same worlds and rollouts (their streams stay equal).
    Without a weight, candidates that play out alike in every world (cards next in a suit) meet too."""
    from newmarket_env.agents.guided_search import GuidedSearchAgent

    rules, observations = _decisions(variant, 2)
    network = _network(rules, seed=3)
    options = {"budget": 40, "max_candidates": 4, "prior": prior, "rollout": "control", "racing_worlds": 6}
    compiled = GuidedSearchAgent(rules, 9, network, prior_weight=weight, racing_z=1.5, **options)
    python = GuidedSearchAgent(rules, 9, network, prior_weight=weight, racing_z=1.5, **options)
    winners = set()
    for observation in observations:
        view = decode(observation)
        for agent in (compiled, python):
            agent.observation, agent._logits = observation["observation"].astype(np.float32), None
        candidates = compiled.candidates(view)
        bonus = weight * compiled._network_logits()[candidates].astype(float)
        chosen = compiled._race(view, candidates, bonus)
        assert chosen == python.race_trace(view, candidates, bonus)[0], (len(winners), candidates)
        winners.add(chosen)
    assert len(observations) > 20 and winners >= {0, 1}  # real races: not always the network's favourite


def test_one_round_of_the_whole_budget_chooses_as_the_plain_search():
    """A race whose first round is its whole budget is search's evaluation of the same worlds: the same
    choice as ``rollout="control"`` without a race, decision by decision."""
    from newmarket_env.agents.guided_search import GuidedSearchAgent

    rules, observations = _decisions("newmarket", 2)
    network = _network(rules, seed=5)
    for k, observation in enumerate(observations):
        options = {"budget": 12, "max_candidates": 3, "prior": "network", "rollout": "control"}
        raced = GuidedSearchAgent(rules, k, network, racing_worlds=12, **options)
        plain = GuidedSearchAgent(rules, k, network, **options)
        assert raced.act(observation) == plain.act(observation), k


def test_a_heavy_prior_weight_plays_the_networks_favourite_legal_action():
    """Outside bids (whose candidates are search's few bids, whatever the prior) the network's favourite."""
    from newmarket_env.agents.guided_search import GuidedSearchAgent
    from newmarket_env.engine.types import Decision

    rules, observations = _decisions("michigan", 1)
    observations = [o for o in observations if decode(o).decision is not Decision.BID]
    assert {decode(o).decision for o in observations} == {Decision.LEAD, Decision.WIDOW}
    for favourite_last in (False, True):
        agent = GuidedSearchAgent(
            rules, 0, _network(rules, favourite_last), budget=4, prior="network", rollout="control", prior_weight=1e6
        )
        for observation in observations:
            legal = np.flatnonzero(observation["action_mask"])
            assert agent.act(observation) == (legal[-1] if favourite_last else legal[0])


def test_the_prior_weight_adds_the_weighted_logits_to_the_means():
    from newmarket_env.agents.guided_search import GuidedSearchAgent

    rules, observations = _decisions("newmarket", 1)
    network = _network(rules, seed=7)
    changed = 0
    for k, observation in enumerate(observations):
        options = {"budget": 6, "max_candidates": 4, "prior": "network", "rollout": "control"}
        weighted = GuidedSearchAgent(rules, k, network, prior_weight=0.3, **options)
        plain = GuidedSearchAgent(rules, k, network, **options)
        plain.observation = observation["observation"].astype(np.float32)
        view = decode(observation)
        candidates = plain.candidates(view)
        means = plain.evaluate(view, candidates)
        scores = means + 0.3 * network.logits(plain.observation)[candidates].astype(float)
        assert weighted.act(observation) == candidates[int(np.argmax(scores))], k
        changed += int(np.argmax(scores)) != int(np.argmax(means))
    assert changed > 0  # the weight did change some choices, so the test can tell it is applied


def test_per_world_chips_average_to_the_means():
    from newmarket_env.agents import knowledge as K
    from newmarket_env.agents._search import CompiledSearch
    from newmarket_env.agents.sampling import position_of

    rules, observations = _decisions("newmarket", 1)
    for observation in observations[:10]:
        view = decode(observation)
        inputs = (
            position_of(view, rules),
            view.hand,
            K.unseen(view, rules),
            view.known_dead & ~rules.removed_mask,
            list(view.card_counts[1:]),
            list(view.legal),
            16,
        )
        chips = CompiledSearch(rules, 4, "control").evaluate_worlds(*inputs)
        assert chips.shape == (16, len(view.legal)) and np.all(chips == np.round(chips))  # whole chips
        np.testing.assert_array_equal(chips.mean(axis=0), CompiledSearch(rules, 4, "control").evaluate(*inputs))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"prior_weight": -1}, "prior_weight=-1 must be a finite number >= 0 (chips per unit of logit)"),
        ({"prior_weight": "high"}, "prior_weight='high' must be a finite number >= 0 (chips per unit of logit)"),
        ({"prior_weight": float("inf")}, "prior_weight=inf must be a finite number >= 0 (chips per unit of logit)"),
        ({"racing_worlds": 1}, "racing_worlds=1 must be 0 (no race) or an int >= 2 (worlds per round)"),
        ({"racing_worlds": 2.5}, "racing_worlds=2.5 must be 0 (no race) or an int >= 2 (worlds per round)"),
        ({"racing_z": 0}, "racing_z=0 must be a number > 0 (standard errors to drop a candidate)"),
        (
            {"racing_worlds": 8, "rollout": "network"},
            "prior_weight and racing_worlds need rollout='control' (they weigh control's rollouts)",
        ),
        (
            {"prior_weight": 0.5},
            "prior_weight and racing_worlds need rollout='control' (they weigh control's rollouts)",
        ),
    ],
)
def test_bad_racing_options_are_one_line_errors(options, message):
    from newmarket_env.agents.guided_search import GuidedSearchAgent

    with pytest.raises(ValueError) as caught:
        GuidedSearchAgent(RULES, 0, _network(RULES), **options)
    assert str(caught.value) == message


def test_each_shipped_guided_search_loads_for_its_preset_with_its_options_and_only_there():
    import json

    from newmarket_env import load_agent
    from newmarket_env.agents.guided_search import SHIPPED_FILE, shipped_guided
    from newmarket_env.agents.shipped import register_shipped_guided
    from newmarket_env.eval.tournament.entrants import default_agent_specs

    entries = json.loads(SHIPPED_FILE.read_text())["agents"]
    assert set(entries) == {"exit-newmarket-search", "exit-michigan-search", "exit-newbury-search"}
    assert shipped_guided() == entries
    register_shipped_guided()  # again, here: what the import registered is what this registers
    for name, entry in entries.items():
        variant = entry["network"].removeprefix("exit-").removesuffix(".npz")
        agent = load_agent(name, env=raw_env(variant=variant, num_players=4), seed=1)
        options = entry["options"]
        assert (agent.budget, agent.max_candidates, agent.prior, agent.rollouts) == (
            options["budget"],
            options["max_candidates"],
            options["prior"],
            options["rollout"],
        )
        assert (agent.prior_weight, agent.racing_worlds, agent.racing_z) == (
            options["prior_weight"],
            options["racing_worlds"],
            options["racing_z"],
        )
        assert load_agent(name, env=raw_env(variant=variant, num_players=4), budget=9).budget == 9  # overridable
        other = "michigan" if variant != "michigan" else "newmarket"
        with pytest.raises(ValueError, match="other rules"):
            load_agent(name, env=raw_env(variant=other, num_players=4))
        field, _ = default_agent_specs(4, raw_env(variant=variant, num_players=4))
        assert name in field and name in default_agent_specs(4, raw_env(variant=other, num_players=4))[1]


def test_a_shipped_guided_search_is_the_guided_search_of_its_network_and_options_with_the_seed_given():
    """``load_agent("exit-michigan-search", seed=s)`` chooses as a GuidedSearchAgent built by hand from the
    shipped network and options with seed ``s``, decision by decision (a lost seed would draw other worlds)."""
    from newmarket_env import load_agent
    from newmarket_env.agents.guided_search import GuidedSearchAgent, shipped_guided
    from newmarket_env.agents.saved import TRAINED_DIR, load_saved_agent
    from newmarket_env.agents.shipped import register_shipped_guided

    register_shipped_guided()
    entry = shipped_guided()["exit-michigan-search"]
    aec = raw_env(variant="michigan", num_players=4)
    rules, observations = _decisions("michigan", 1, seed=5)
    shipped = load_agent("exit-michigan-search", env=aec, seed=21)
    by_hand = GuidedSearchAgent(rules, 21, load_saved_agent(TRAINED_DIR / entry["network"], rules), **entry["options"])
    assert [shipped.act(o) for o in observations] == [by_hand.act(o) for o in observations]


def test_a_cutoff_without_a_value_network_is_refused_in_so_many_words():
    from newmarket_env.agents.guided_search import GuidedSearchAgent

    with pytest.raises(ValueError) as caught:
        GuidedSearchAgent(RULES, 0, _network(RULES), cutoff=2)
    assert str(caught.value) == "cutoff > 0 needs value=PATH (a value network .npz, e.g. runs/<run>/final_value.npz)"
