"""The OpenSpiel game ``python_newmarket``: OpenSpiel's own conformance test, the same sessions as the
PettingZoo env (on the compiled engine) on the same deals and decisions, IS-MCTS playing it, and
``evaluate_bots`` with the package's agents."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts  # noqa: E402

import newmarket_env.integrations.openspiel as O  # noqa: E402
from newmarket_env import env  # noqa: E402
from newmarket_env.game.rules import VARIANTS, make_rules  # noqa: E402

# One rules set per variant, plus overrides that reach the other paths: stakes chosen before the cards
# (decisions before the chance nodes), lots for the leftovers, an auction for the widow, house stakes.
CASES = [(variant, 4, "num_deals:2" if variant == "newbury" else "") for variant in VARIANTS] + [
    ("michigan", 5, "num_deals:2;stake_mode:choose"),
    ("newmarket", 3, "num_deals:2;widow:dealer_buy;leftover:lot;stake_mode:house"),
]


def _game(variant: str, players: int, rules: str):
    return pyspiel.load_game(O.GAME_NAME, {"variant": variant, "players": players, "rules": rules})


def test_loading_by_name_and_parameters():
    game = pyspiel.load_game("python_newmarket(variant=michigan,players=5)")
    assert game.num_players() == 5 and game.rules.boodles == make_rules("michigan").boodles
    assert game.num_distinct_actions() == 79 and game.max_chance_outcomes() == 52
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    with pytest.raises(Exception, match="num_players=9 is out of range"):
        pyspiel.load_game(O.GAME_NAME, {"players": 9})
    with pytest.raises(Exception, match="widow"):
        pyspiel.load_game(O.GAME_NAME, {"rules": "widow:sometimes"})


@pytest.mark.parametrize("variant,players,rules", CASES)
def test_openspiels_random_simulation_test(variant, players, rules):
    """OpenSpiel's conformance test, states serialized and read back included."""
    pyspiel.random_sim_test(_game(variant, players, rules), num_sims=2, serialize=True, verbose=False)


def test_rules_overrides_survive_the_game_string():
    game = _game("newmarket", 4, "num_deals:1;boodles:AS/KS/QS/JS;widow:dealer_buy")
    again = pyspiel.load_game(str(game))
    assert again.rules == game.rules and again.rules.num_deals == 1 and again.rules.boodles == ("AS", "KS", "QS", "JS")
    with pytest.raises(Exception, match="rules item 'num_deals=1' is not KEY:VALUE"):
        _game("newmarket", 4, "num_deals=1")


def _env_session(variant: str, players: int, rules: str, seed: int):
    """A session of the PettingZoo env (compiled engine) with seeded random decisions: its record, and
    each decision's seat, observation and action."""
    overrides = O.rules_from_parameters({"variant": variant, "players": players, "rules": rules}).to_dict()
    table = env(variant=variant, **overrides)
    table.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = []
    for agent in table.agent_iter():
        observation, _, done, truncated, _ = table.last()
        if done or truncated:
            table.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        steps.append((int(agent.split("_")[1]), observation["observation"].copy(), action))
        table.step(action)
    return table.unwrapped.record(), steps


@pytest.mark.parametrize("variant,players,rules", CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_sessions_equal_the_pettingzoo_envs(variant, players, rules, seed):
    """The env's deals become chance outcomes and its decisions the players' actions: the OpenSpiel game
    must ask the same seat each decision, show it the same observation, and end with the same record."""
    record, steps = _env_session(variant, players, rules, seed)
    game = _game(variant, players, rules)
    state = game.new_initial_state()
    draws = [O.draws_for_deal(game.rules, deal) for deal in record["deals"]]
    lots = [event["seat"] for event in record["deals"][-1]["events"] if event["type"] == "leftover"]
    lots = [seat for seat in lots if seat is not None]
    decisions = iter(steps)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = dict(state.chance_outcomes())
            if state.engine.awaiting_deal:
                card = draws[state.engine.deal_index].pop(0)
                assert outcomes[card] == pytest.approx(1 / len(outcomes))
                state.apply_action(card)
            else:
                state.apply_action(lots.pop(0))
            continue
        seat, observation, action = next(decisions)
        assert state.current_player() == seat
        np.testing.assert_array_equal(np.asarray(state.observation_tensor(seat), np.float32), observation)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert next(decisions, None) is None and not lots
    assert state.record() == record
    start = record["rules"]["starting_chips"]
    assert state.returns() == [float(c - start) for c in record["deals"][-1]["chips"]]


def test_the_information_state_is_perfect_recall_and_private():
    """Two deals that differ only in cards seat 0 cannot see: seat 0's information state is the same, the
    seat holding the swapped cards tells them apart."""
    game = _game("newmarket", 4, "num_deals:1")
    states = []
    for swap in (False, True):
        state = game.new_initial_state()
        draws = list(range(52))
        if swap:  # cards 1 and 2 go to seats 2 and 3 (dealer 0: eldest is seat 1) instead of 2 and 3
            draws[1], draws[2] = draws[2], draws[1]
        for card in draws:
            state.apply_action(card)
        states.append(state)
    assert states[0].information_state_string(0) == states[1].information_state_string(0)
    assert states[0].information_state_string(2) != states[1].information_state_string(2)
    assert states[0].observation_string(0) == states[1].observation_string(0)


def test_resampling_keeps_what_the_player_knows():
    game = _game("michigan", 4, "num_deals:1")
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    while state.is_chance_node() or len(state.legal_actions()) < 2 or rng.random() < 0.5:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(player, sampler) for _ in range(5)]
    for world in worlds:
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation_tensor(player) == state.observation_tensor(player)
        assert world.legal_actions() == state.legal_actions()
    others = {tuple(world.engine.hands) for world in worlds}
    assert len(others) > 1  # the hidden cards were dealt anew


def test_ismcts_plays_a_session_against_the_packages_agents():
    """OpenSpiel's IS-MCTS (random rollouts, worlds from resample_from_infostate) at seat 0 against three
    package agents through the adapter; its bot has no restart_at, so the session is stepped here rather
    than by evaluate_bots."""
    game = _game("michigan", 4, "num_deals:2")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    search = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=np.random.RandomState(1))
    bots = {
        seat: O.agent_bot(name, game, seat, seed=seat) for seat, name in [(1, "control"), (2, "greedy"), (3, "random")]
    }
    rng = np.random.default_rng(2)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        player = state.current_player()
        if player == 0:
            action = search.step(state)
            searched += 1
        else:
            action = bots[player].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert searched >= 2 and sum(state.returns()) == 0  # michigan with lots: every chip stays at the table


def test_evaluate_bots_runs_the_packages_agents_as_the_env_would():
    """Four package agents through the adapter: the same returns as the same agents in the env on the
    same deal (the deal drawn by evaluate_bots' chance, fed to the env through reset options; no lots, which
    the env would draw from its own seed)."""
    game = _game("newmarket", 4, "num_deals:1;leftover:vanish")
    names = ["control", "greedy", "lowest", "control"]
    bots = [O.agent_bot(name, game, seat, seed=seat) for seat, name in enumerate(names)]
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(7))
    deal = state.record()["deals"][0]
    table = env(variant="newmarket", num_players=4, num_deals=1, leftover="vanish")
    from newmarket_env import load_agent

    agents = [load_agent(name, env=table, seed=seat) for seat, name in enumerate(names)]
    table.reset(seed=0, options={"deals": [{k: deal[k] for k in ("dealer", "hands", "dead")}]})
    for agent in table.agent_iter():
        observation, _, done, truncated, _ = table.last()
        table.step(None if done or truncated else agents[int(agent.split("_")[1])].act(observation))
    assert table.unwrapped.record() == state.record()
    assert returns == [float(c - 40) for c in deal["chips"]]


@pytest.mark.parametrize("variant,players", [("newmarket", 4), ("michigan", 6), ("newbury", 4), ("hoyle1885", 3)])
def test_the_chance_draws_deal_as_the_engine_deals_a_shuffled_deck(variant, players):
    """Drawing the cards of a shuffled deck one by one gives the engine's own deal of that deck."""
    import random

    from newmarket_env.engine.dealing import shuffled_deal, sorted_deck

    rules = make_rules(variant, players)
    for dealer in range(players):
        deck = list(sorted_deck(rules.removed_mask))
        random.Random(dealer).shuffle(deck)
        assert O.dealt_from_draws(rules, dealer, deck) == shuffled_deal(rules, dealer, random.Random(dealer))
