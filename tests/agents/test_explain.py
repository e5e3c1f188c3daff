"""``explain(observation)``, the optional agent method of docs/contract.md: each agent says what it thinks, and
asking never changes what it does (explain, then act, plays exactly as act alone)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from newmarket_env import env, load_agent
from newmarket_env.agents.policy import PolicyAgent


def _observations(variant: str, seed: int, count: int, **rules):
    """``count`` decisions of a random session: (observation copy, legal actions)."""
    e = env(variant=variant, **rules)
    e.reset(seed=seed)
    rng = random.Random(seed)
    out = []
    while len(out) < count and not e.unwrapped.game.over:
        observation, *_ = e.last()
        legal = list(np.flatnonzero(observation["action_mask"]))
        out.append(({k: np.array(v, copy=True) for k, v in observation.items()}, legal))
        e.step(int(rng.choice(legal)))
    return e, out


def _play(agents_by_seat, variant: str, seed: int, explain: bool, **rules) -> tuple[list[int], list[dict]]:
    """A session of ``agents_by_seat`` (seat -> agent), explain asked first or not; the actions and thoughts."""
    e = env(variant=variant, **rules)
    for agent in agents_by_seat.values():
        agent.reset()
    e.reset(seed=seed)
    actions, thoughts = [], []
    while not e.unwrapped.game.over:
        agent = agents_by_seat[e.unwrapped.game.to_act]
        observation = e.observe(e.agent_selection)
        if explain:
            thoughts.append(agent.explain(observation))
        actions.append(int(agent.act(observation)))
        e.step(actions[-1])
    return actions, thoughts


@pytest.mark.parametrize("name", ["lowest", "greedy", "control", "random"])
@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_the_baselines_name_the_rule_that_chose(name, engine):
    e, decisions = _observations("michigan", 3, 60)
    for observation, legal in decisions:
        agent = load_agent(name, env=e, seed=5, engine=engine)
        thoughts = agent.explain(observation)
        assert isinstance(thoughts["summary"], str) and thoughts["summary"]
        rows = thoughts.get("actions", [])
        assert all(row["action"] in legal for row in rows)
        action = agent.act(observation)
        scored = [row for row in rows if "score" in row]
        if scored and name != "random":  # the rule's best score is the action it takes
            assert scored[0]["action"] == action, (thoughts, action)
        if name == "random":
            assert sum(row["probability"] for row in rows) == pytest.approx(1.0)
            assert len(rows) == len(legal)


def test_explaining_a_python_baseline_leaves_its_stream_alone():
    e, _ = _observations("michigan", 1, 1)
    asked = {
        s: PolicyAgent(e.unwrapped.rules, 7 + s, policy=load_agent("control", env=e, engine="python").policy_class)
        for s in range(4)
    }
    quiet = {s: PolicyAgent(e.unwrapped.rules, 7 + s, policy=asked[0].policy_class) for s in range(4)}
    assert (
        _play(asked, "michigan", 4, explain=True, num_deals=2)[0]
        == _play(quiet, "michigan", 4, explain=False, num_deals=2)[0]
    )


def test_search_explains_its_candidates_and_plays_as_without_asking():
    e, _ = _observations("newmarket", 2, 1)
    asked = {s: load_agent("search", env=e, seed=11 + s, budget=6) for s in range(4)}
    quiet = {s: load_agent("search", env=e, seed=11 + s, budget=6) for s in range(4)}
    acted, thoughts = _play(asked, "newmarket", 9, explain=True, num_deals=1)
    assert acted == _play(quiet, "newmarket", 9, explain=False, num_deals=1)[0]
    searched = [t for t in thoughts if "choice" in t]
    assert searched
    for t in searched:
        rows = t["actions"]
        assert len(rows) >= 2 and all(row["worlds"] == 6 for row in rows)
        assert rows[0]["action"] == t["choice"] and rows[0]["mean_chips"] == max(r["mean_chips"] for r in rows)


def test_the_racing_guided_search_says_when_each_candidate_left():
    e, _ = _observations("newmarket", 2, 1)
    asked = {s: load_agent("exit-newmarket-search", env=e, seed=21 + s) for s in range(4)}
    quiet = {s: load_agent("exit-newmarket-search", env=e, seed=21 + s) for s in range(4)}
    acted, thoughts = _play(asked, "newmarket", 6, explain=True, num_deals=1)
    # the C race (act alone) and the traced Python race (explain) pick the same actions on the same draws
    assert acted == _play(quiet, "newmarket", 6, explain=False, num_deals=1)[0]
    raced = [t for t in thoughts if "choice" in t]
    assert raced and all("race" in t["summary"] for t in raced)
    dropped = [row for t in raced for row in t["actions"] if "dropped_after" in row]
    assert dropped, "no candidate left a race in a whole session"
    for t in raced:
        winner = t["actions"][0]
        assert winner["action"] == t["choice"] and "dropped_after" not in winner
        for row in t["actions"][1:]:
            assert row["worlds"] <= winner["worlds"] and row["worlds"] % 16 == 0  # whole rounds of 16 worlds
            # a rival short of the whole budget left the race after its last round; one given all 64 stayed
            assert row.get("dropped_after", 64) == row["worlds"]
            assert row["score"] == pytest.approx(row["mean_chips"] + row["bonus"])


def test_a_network_gives_its_probabilities_over_the_legal_actions():
    e, decisions = _observations("newmarket", 5, 40)
    agent = load_agent("ppo-newmarket", env=e, seed=0)
    for observation, legal in decisions:
        thoughts = agent.explain(observation)
        rows = thoughts["actions"]
        assert sorted(row["action"] for row in rows) == sorted(legal)
        assert sum(row["probability"] for row in rows) == pytest.approx(1.0)
        assert rows[0]["action"] == agent.act(observation)  # it takes the most likely
        # the probabilities are the softmax of the logits it reports
        logits = np.array([row["logit"] for row in rows])
        expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
        assert np.allclose([row["probability"] for row in rows], expected, atol=1e-6)
