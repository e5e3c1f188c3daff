"""guided_search: network rollouts equal search's with the same rollout policy; legal, deterministic play;
the value cut-off; saved value networks; one-line errors."""

import contextlib

import numpy as np
import pytest

from newmarket_env import load_agent, raw_env
from newmarket_env.engine.choice import compiled_available
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.view import decode

with contextlib.suppress(ImportError):  # not built: the tests that need it skip
    from newmarket_env.observation._encode import encode_game

pytestmark = pytest.mark.skipif(not compiled_available(), reason="guided_search needs the compiled engine")

RULES = make_rules("newmarket", 4)
ONE_DEAL = make_rules("newmarket", 4, num_deals=1)


def _first_legal_network(rules):
    """A network whose greedy action is the lowest legal action id: what ``lowest`` plays within a deal."""
    from newmarket_env.agents.saved import SavedAgent

    layers = [(np.zeros((NUM_ACTIONS, FLAT_SIZE), np.float32), -np.arange(NUM_ACTIONS, dtype=np.float32))]
    return SavedAgent(rules, 0, {"activation": "tanh"}, layers)


def _constant_value(chips):
    from newmarket_env.agents.value_net import ValueNet

    layers = [(np.zeros((1, FLAT_SIZE), np.float32), np.array([chips * 0.1], np.float32))]
    return ValueNet({"activation": "tanh", "reward_scale": 0.1}, layers)


@pytest.fixture(scope="module")
def states():
    from newmarket_env.train.collect import collect_states

    return collect_states(RULES, None, "control", [], 0.0, tables=4, count=40, seed=11, reward_scale=0.1)


def test_rollouts_equal_the_python_search_with_the_same_rollout_policy(states):
    """With a network that plays as ``lowest`` (first legal card), the candidates' means equal the pure-Python
    search's with ``rollout="lowest"``: same worlds, same rollouts, one forward pass per step for all of them."""
    from newmarket_env.agents.guided_search import GuidedSearchAgent
    from newmarket_env.agents.search import SearchAgent

    network = _first_legal_network(RULES)
    compared = 0
    for k in range(len(states.returns)):
        view = decode(states.obs[k], states.masks[k])
        reference = SearchAgent(RULES, seed=k, budget=5, rollout="lowest", engine="python")
        candidates = reference.candidates(view)
        guided = GuidedSearchAgent(RULES, k, network, budget=5)
        np.testing.assert_array_equal(guided.evaluate(view, candidates), reference.evaluate(view, candidates))
        compared += 1
    assert compared == 40


def reference_evaluate(agent, view, candidates):
    """guided_search's evaluate as it was before its rollouts ran on a TableBatch, kept as the readable
    reference of the batched one: ``budget`` worlds sampled in Python (``agent._random``, search's
    ``sample_cards`` and seed draw), one ``FastGame.at_position`` per world and candidate, and at each
    rollout step a Python loop that encodes every unfinished game and its legal mask for one forward pass."""
    from newmarket_env.agents.sampling import VIEWER, position_of, sample_cards
    from newmarket_env.engine._fast import FastGame
    from newmarket_env.observation.encode import static_part

    static = static_part(agent.rules)
    position = position_of(view, agent.rules)
    games, seed = [], None
    for _ in range(agent.budget):
        hands, dead = sample_cards(view, agent.rules, agent._random)
        seed = agent._random.randrange(2**31) if seed is None else seed
        games.extend(FastGame.at_position(position, hands, dead, seed=seed, plain_next_deal=True) for _ in candidates)
    start = np.array([g.balances[VIEWER] for g in games], dtype=np.float64)
    deal = games[0].deal_index
    for game, action in zip(games, candidates * agent.budget, strict=True):
        game.apply(action)
    live = [i for i, g in enumerate(games) if not g.over and g.deal_index == deal]
    steps = 0
    while live and not (agent.cutoff and steps >= agent.cutoff):
        obs = np.zeros((len(live), FLAT_SIZE), dtype=np.float32)
        masks = np.zeros((len(live), NUM_ACTIONS), dtype=bool)
        for row, i in enumerate(live):
            encode_game(games[i], games[i].to_act, obs[row], static)
            masks[row, games[i].legal] = True
        for i, action in zip(live, agent.policy.act_batch(obs, masks), strict=True):
            games[i].apply(int(action))
        live = [i for i in live if not games[i].over and games[i].deal_index == deal]
        steps += 1
    chips = np.array([g.balances[VIEWER] for g in games], dtype=np.float64) - start
    if live:
        obs = np.zeros((len(live), FLAT_SIZE), dtype=np.float32)
        for row, i in enumerate(live):
            encode_game(games[i], VIEWER, obs[row], static)
        chips[live] += agent.value.chips(obs)
    return chips.reshape(agent.budget, len(candidates)).mean(axis=0)


@pytest.mark.parametrize("cutoff", [0, 3])
@pytest.mark.parametrize("preset", ["newmarket", "michigan", "newbury"])
def test_batched_rollouts_equal_the_per_game_reference(preset, cutoff):
    """The same chip means per candidate, to the last bit, as the per-game reference above, decision after
    decision (the random streams and the reused batch carry over), with a network of the shipped size
    (random weights: every seat of a rollout plays its greedy action) and, with a cut-off, a value net."""
    from newmarket_env.agents.guided_search import GuidedSearchAgent
    from newmarket_env.eval.bench.guided import random_network, random_value
    from newmarket_env.train.collect import collect_states

    rules = make_rules(preset, 4)
    data = collect_states(rules, None, "control", [], 0.0, tables=4, count=30, seed=5, reward_scale=0.1)
    network, value = random_network(rules), random_value() if cutoff else None
    batched = GuidedSearchAgent(rules, 7, network, value, budget=3, cutoff=cutoff)
    reference = GuidedSearchAgent(rules, 7, network, value, budget=3, cutoff=cutoff)
    decisions, spread = set(), 0
    for k in range(len(data.returns)):
        view = decode(data.obs[k], data.masks[k])
        if len(view.legal) < 2 or view.decision.value == "stake":  # search decides these without rollouts
            continue
        candidates = reference.candidates(view)
        means = batched.evaluate(view, candidates)
        np.testing.assert_array_equal(means, reference_evaluate(reference, view, candidates), err_msg=f"state {k}")
        decisions.add(view.decision.value)
        spread += np.ptp(means) > 0
    assert spread >= 5, spread  # the candidates' means do differ: the comparison is not of constants
    assert {"newbury": "discard", "michigan": "bid"}.get(preset, "lead") in decisions, decisions


def test_value_cutoff_adds_the_value_of_rollouts_still_running(states):
    """Cut after one decision near a deal's start (every seat holds 9+ cards: one decision, even with the
    forced plays the engine makes after it, cannot end the deal): the means with a value net that says
    +5 chips are those with one that says 0, plus exactly 5. (At 5 cards a deal can end within one
    decision: a run of forced plays empties a hand.)"""
    from newmarket_env.agents.guided_search import GuidedSearchAgent

    network = _first_legal_network(RULES)
    early = [
        k
        for k in range(len(states.returns))
        if min(decode(states.obs[k], states.masks[k]).card_counts) >= 9
        and len(decode(states.obs[k], states.masks[k]).legal) > 1
    ]
    assert early
    for k in early[:5]:
        view = decode(states.obs[k], states.masks[k])
        means = [
            GuidedSearchAgent(RULES, k, network, _constant_value(v), budget=4, cutoff=1).evaluate(view, view.legal[:3])
            for v in (0.0, 5.0)
        ]
        np.testing.assert_allclose(means[1] - means[0], 5.0, rtol=0, atol=1e-9)
        uncut = GuidedSearchAgent(RULES, k, network, budget=4).evaluate(view, view.legal[:3])
        assert not np.allclose(uncut, means[0])  # the cut-off did stop the rollouts


@pytest.fixture(scope="module")
def mimic(tmp_path_factory):
    """A small network fitted to ``control``'s decisions, saved as a saved-agent file, and a value file."""
    import torch

    from newmarket_env.agents._baselines import CompiledPolicy
    from newmarket_env.agents.saved import save_policy
    from newmarket_env.agents.value_net import save_value
    from newmarket_env.train.collect import collect_states
    from newmarket_env.train.expert.fit import fit
    from newmarket_env.train.expert.network import PolicyValueNet
    from newmarket_env.train.networks import layers_of

    data = collect_states(ONE_DEAL, None, "control", [], 0.0, tables=8, count=600, seed=2, reward_scale=0.1)
    control = CompiledPolicy("control", ONE_DEAL, 0)
    actions = np.array([control.act(o, m.astype(np.int8)) for o, m in zip(data.obs, data.masks, strict=True)])
    targets = np.eye(NUM_ACTIONS, dtype=np.float32)[actions]
    torch.set_num_threads(1)  # a loaded 2-core machine: more threads only wait on each other
    torch.manual_seed(0)
    net = PolicyValueNet([64], "tanh")
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
    report = fit(
        net, optimizer, data.obs, data.masks, targets, data.returns, epochs=25, batch_size=64, value_weight=0.5, seed=0
    )
    folder = tmp_path_factory.mktemp("mimic")
    save_policy(folder / "mimic.npz", layers_of(net.policy), ONE_DEAL, "newmarket", "tanh", name="mimic")
    save_value(folder / "mimic_value.npz", layers_of(net.value_net), ONE_DEAL, "newmarket", "tanh", 0.1)
    return folder, report["agreement"]


def _play(agent_options, seed, folder):
    """One session at a one-deal table of four guided_search seats; every action checked against the mask."""
    aec = raw_env(variant="newmarket", num_players=4, num_deals=1)
    aec.reset(seed=seed)
    seats = [
        load_agent("guided_search", env=aec, seed=seed + s, network=str(folder / "mimic.npz"), **agent_options)
        for s in range(4)
    ]
    taken = []
    while not aec.game.over:
        seat = aec.game.to_act
        observation = aec.observe(f"player_{seat}")
        action = seats[seat].act(observation)
        assert observation["action_mask"][action], (seat, action)
        taken.append(action)
        aec.step(action)
    return taken, aec.game.balances


@pytest.mark.parametrize("options", [{"budget": 2}, {"budget": 2, "cutoff": 3, "prior": "network"}])
def test_a_network_that_mimics_control_plays_legal_moves_deterministically(mimic, options):
    folder, agreement = mimic
    assert agreement > 0.8  # the fixture is what it says: it chose as control on most of its training decisions
    if "cutoff" in options:
        options = {**options, "value": str(folder / "mimic_value.npz")}
    first, balances = _play(options, 4, folder)
    again, _ = _play(options, 4, folder)
    assert first == again and len(first) >= 4  # a one-deal session: few decisions (forced plays are automatic)
    assert sum(balances) == 4 * ONE_DEAL.starting_chips  # newmarket is zero-sum


def test_bad_options_are_one_line_errors(mimic, tmp_path):
    folder, _ = mimic
    aec = raw_env(variant="newmarket", num_players=4, num_deals=1)
    network = str(folder / "mimic.npz")
    cases = [
        ({}, "needs network=PATH"),
        ({"network": (network, "budget=128")}, "network= must be one file path, got ("),
        ({"network": network, "value": ("a", "b")}, "value= must be one file path, got ('a', 'b')"),
        ({"network": network, "cutoff": 2}, "cutoff > 0 needs value=PATH"),
        ({"network": network, "prior": "oracle"}, "prior='oracle' is unknown; allowed: control, network"),
        ({"network": network, "value": network, "cutoff": 2}, "is not a valid newmarket_env value network"),
        ({"network": network, "budget": 0}, "budget=0 must be an int from 1 to 10000"),
        (
            {"network": network, "cutoff": -1},
            "cutoff=-1 must be an int >= 0 (decisions before the value net; 0 = none)",
        ),
    ]
    for options, message in cases:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
            load_agent("guided_search", env=aec, **options)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="num_deals"):  # trained for one deal, asked for four
        load_agent("guided_search", env=raw_env(variant="newmarket", num_players=4), network=network)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a valid newmarket_env value network"):
        load_agent("guided_search", env=aec, network=network, value=str(tmp_path / "bad.npz"), cutoff=1)


def test_a_saved_value_network_reads_back(tmp_path):
    from newmarket_env.agents.value_net import load_value, save_value

    rng = np.random.default_rng(0)
    layers = [
        (rng.normal(size=(8, FLAT_SIZE)).astype(np.float32), rng.normal(size=8).astype(np.float32)),
        (rng.normal(size=(1, 8)).astype(np.float32), np.array([0.5], np.float32)),
    ]
    save_value(tmp_path / "v.npz", layers, ONE_DEAL, "newmarket", "relu", 0.1)
    value = load_value(tmp_path / "v.npz", ONE_DEAL)
    x = rng.normal(size=(3, FLAT_SIZE)).astype(np.float32)
    by_hand = (np.maximum(x @ layers[0][0].T + layers[0][1], 0) @ layers[1][0].T + layers[1][1])[:, 0] / 0.1
    np.testing.assert_allclose(value.chips(x), by_hand, rtol=1e-5)


def test_each_rollout_decision_sees_the_observation_of_the_seat_to_act(states):
    """The network is asked with the deciding seat's own view: every legal card it is offered is in the hand
    that view shows (the view of another seat would show other cards)."""
    from newmarket_env.agents.guided_search import GuidedSearchAgent

    rows = []

    class Recording(GuidedSearchAgent):
        def _actions(self, observations, masks):  # the rollouts' one call to the network per step
            rows.extend(zip(observations.copy(), masks.copy(), strict=True))
            return super()._actions(observations, masks)

    network = _first_legal_network(RULES)
    for k in range(0, 40, 8):
        view = decode(states.obs[k], states.masks[k])
        Recording(RULES, k, network, budget=3).evaluate(view, view.legal[:2])
    cards = 0
    for obs, mask in rows:
        seen = decode(obs, mask)
        for action in seen.legal:
            if action < 52:
                assert seen.hand >> action & 1, (action, seen.hand)
                cards += 1
    assert cards > 100


def test_the_network_prior_ranks_candidates_by_its_logits_and_the_control_prior_as_search():
    """``_first_legal_network`` scores action ``a`` with ``-a``: as prior it must offer the lowest legal ids,
    best first; the default prior offers what ``search`` offers."""
    from newmarket_env.agents.guided_search import GuidedSearchAgent
    from newmarket_env.agents.search import SearchAgent

    aec = raw_env(variant="newmarket", num_players=4)
    aec.reset(seed=3)
    observation = aec.observe(aec.agent_selection)
    while int(observation["action_mask"].sum()) < 4:  # a decision with a real choice
        aec.step(int(np.flatnonzero(observation["action_mask"])[0]))
        observation = aec.observe(aec.agent_selection)
    view = decode(observation)
    legal = sorted(int(a) for a in np.flatnonzero(observation["action_mask"]))
    network = _first_legal_network(RULES)
    by_network = GuidedSearchAgent(RULES, 0, network, prior="network", max_candidates=3)
    by_network.observation = np.asarray(observation["observation"], dtype=np.float32)
    assert by_network.candidates(view) == legal[:3]
    by_control = GuidedSearchAgent(RULES, 0, network, max_candidates=3)
    by_control.observation = by_network.observation
    assert by_control.candidates(view) == SearchAgent(RULES, seed=0, max_candidates=3).candidates(view)
    assert by_control.candidates(view) != legal[:3]  # the two priors differ here, so the test can tell them apart


def test_the_default_budget_is_eight_worlds_without_a_cutoff(mimic):
    folder, _ = mimic
    agent = load_agent(
        "guided_search", env=raw_env(variant="newmarket", num_players=4, num_deals=1), network=str(folder / "mimic.npz")
    )
    assert (agent.budget, agent.cutoff, agent.prior) == (8, 0, "control")


def test_control_rollouts_choose_exactly_as_search(states):
    """``rollout="control"`` with the control prior is ``search`` itself: the same worlds (both seeded as the
    agent), the same five candidates and the same compiled rollouts, so the same action at every position."""
    from newmarket_env.agents.guided_search import GuidedSearchAgent
    from newmarket_env.agents.search import SearchAgent

    network = _first_legal_network(RULES)
    for k in range(len(states.returns)):
        observation = {"observation": states.obs[k], "action_mask": states.masks[k]}
        search = SearchAgent(RULES, seed=k, budget=6, engine="compiled")
        guided = GuidedSearchAgent(RULES, k, network, budget=6, rollout="control")
        assert guided.act(observation) == search.act(observation), k


def test_with_the_network_prior_control_rollouts_search_the_networks_favourites(states):
    """The network ranks the legal actions (here: lowest id first), the search evaluates only its top
    ``max_candidates`` with search's rollouts: its means are search's on those candidates."""
    from newmarket_env.agents.guided_search import GuidedSearchAgent
    from newmarket_env.agents.search import SearchAgent

    network = _first_legal_network(RULES)
    searched = 0
    for k in range(len(states.returns)):
        view = decode(states.obs[k], states.masks[k])
        guided = GuidedSearchAgent(RULES, k, network, budget=4, max_candidates=2, prior="network", rollout="control")
        guided.observation = states.obs[k]
        candidates = guided.candidates(view)
        assert candidates == sorted(view.legal)[:2]
        search = SearchAgent(RULES, seed=k, budget=4, max_candidates=2, engine="compiled")
        np.testing.assert_array_equal(guided.evaluate(view, candidates), search.evaluate(view, candidates))
        searched += 1
    assert searched == 40


@pytest.mark.parametrize(
    "options, message",
    [
        ({"rollout": "lowest"}, "rollout='lowest' is unknown; allowed: network, control"),
        (
            {"rollout": "control", "cutoff": 2},
            "cutoff > 0 needs rollout='network' (control's rollouts always play to the deal's end)",
        ),
    ],
)
def test_bad_rollout_options_are_refused(options, message):
    from newmarket_env.agents.guided_search import GuidedSearchAgent

    with pytest.raises(ValueError) as caught:
        GuidedSearchAgent(RULES, 0, _first_legal_network(RULES), _constant_value(1.0), **options)
    assert str(caught.value) == message
