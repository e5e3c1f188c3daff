"""``VectorEnv`` (one learner seat per compiled table) against ``SingleAgentEnv``'s semantics on the reference engine.

Each table of the vector env is replayed on the reference ``Game`` (table
``i``'s sessions come from ``random.Random(table_seed(seed, i))``, as
``tests/batch/test_table_batch.py`` checks for the batch itself), with the same
learner seat and opponents (read from the env at each session start), the
opponents played by the *Python* agents (``agents/lowest.py``, ``agents/greedy.py``,
the saved agent's single-decision ``act``), and the learner's reward computed as
``SingleAgentEnv.step`` computes it: its balance change since its previous
decision. Observations, masks, rewards, ends, final observations and results
must all agree, step by step.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from newmarket_env.engine import Game
from newmarket_env.engine.choice import FastGame
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.encode import encode_flat, static_part
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.state import encode_state, state_static_part

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")

if FastGame is not None:
    from newmarket_env.engine._batch import table_seed


def saved_agent_file(path, rules, variant, seed=0, hidden=32):
    """A saved agent with random weights for ``rules`` (a stand-in for a frozen snapshot of the learner)."""
    from newmarket_env.agents.saved import save_policy

    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(scale=0.3, size=(hidden, FLAT_SIZE)), rng.normal(scale=0.1, size=hidden)),
        (rng.normal(scale=0.5, size=(NUM_ACTIONS, hidden)), np.zeros(NUM_ACTIONS)),
    ]
    save_policy(path, layers, rules, variant, "tanh", {"steps": 0})
    return str(path)


def python_agent(spec, rules):
    """The Python reference of an opponent: the policy classes themselves, or the saved agent's ``act``."""
    from newmarket_env.agents.greedy import GreedyPolicy
    from newmarket_env.agents.lowest import LowestPolicy
    from newmarket_env.agents.policy import PolicyAgent
    from newmarket_env.agents.saved import load_saved_agent

    policies = {"lowest": LowestPolicy, "greedy": GreedyPolicy}
    if spec in policies:
        return PolicyAgent(rules, 0, policy=policies[spec])
    return load_saved_agent(spec, rules)


class ReferenceLearnerTable:
    """One table of the vector env on the reference engine, the learner's reward as SingleAgentEnv gives it."""

    def __init__(self, rules, seed: int, table: int) -> None:
        self.rules, self.static, self.state_static = rules, static_part(rules), state_static_part(rules)
        self.stream = random.Random(table_seed(seed, table))
        self.agents: dict[str, object] = {}

    def start(self, learner: int, specs: list) -> None:
        self.game = Game(self.rules, rng=self.stream, record_events=False)
        self.learner, self.specs = learner, specs
        self.last = self.rules.starting_chips
        for spec in specs:
            if spec is not None and spec not in self.agents:
                self.agents[spec] = python_agent(spec, self.rules)
        self._play_opponents()
        assert not self.game.over, "a session without a learner decision (the env skips it; too rare to replay)"

    def _play_opponents(self) -> None:
        game = self.game
        while not game.over and game.to_act != self.learner:
            seat = game.to_act
            game.apply(int(self.agents[self.specs[seat]].act(self.observe(seat))))

    def observe(self, seat: int) -> dict:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if not self.game.over:
            mask[self.game.legal] = 1
        return {"observation": encode_flat(self.game, seat, self.static), "action_mask": mask}

    def step(self, action: int) -> int:
        self.game.apply(action)
        self._play_opponents()
        balance = self.game.balances[self.learner]
        reward, self.last = balance - self.last, balance
        return reward


def check_learner_view(env, i, ref, where):
    expected = ref.observe(ref.learner)
    np.testing.assert_array_equal(env.batch.observations[i], expected["observation"], err_msg=where)
    np.testing.assert_array_equal(env.action_masks()[i], expected["action_mask"].astype(bool), err_msg=where)
    assert env.learner[i] == ref.learner, where
    # The privileged state, counted from the learner's seat (the reference encoder on the reference table).
    np.testing.assert_array_equal(env.states()[i], encode_state(ref.game, ref.learner, ref.state_static), err_msg=where)


CASES = [("newmarket", 4), ("michigan", 5), ("newbury", 4), ("michigan", 3)]


@pytest.mark.parametrize("variant, players", CASES)
def test_learner_sees_what_single_agent_semantics_give(tmp_path, variant, players):
    from newmarket_env import vector_env

    rules = make_rules(variant, num_players=players)
    snapshot = saved_agent_file(tmp_path / "snap.npz", rules, variant)
    tables, seed, scale = 6, 21, 0.5
    env = vector_env(
        variant=variant,
        num_players=players,
        num_envs=tables,
        opponents=["lowest", "greedy"],
        snapshots=[snapshot],
        snapshot_fraction=0.4,
        reward_scale=scale,
        seed=3,
    )
    obs, infos = env.reset(seed=seed)
    refs = [ReferenceLearnerTable(rules, seed, i) for i in range(tables)]
    for i, ref in enumerate(refs):
        ref.start(int(env.learner[i]), env.seat_specs(i))
        check_learner_view(env, i, ref, f"table {i} after reset")
    np.testing.assert_array_equal(obs, env.batch.observations)
    rng = np.random.default_rng(players)
    ended = 0
    kinds = set()
    for step in range(150):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert not truncated.any() and not infos["illegal_action"].any()
        for i, ref in enumerate(refs):
            where = f"{variant} {players}p table {i} step {step}"
            kinds.update(s for s in ref.specs if s is not None)
            reward = ref.step(int(actions[i]))
            assert rewards[i] == pytest.approx(reward * scale), where
            assert bool(terminated[i]) == ref.game.over, where
            if ref.game.over:
                ended += 1
                np.testing.assert_array_equal(
                    infos["final_obs"][i], ref.observe(ref.learner)["observation"], err_msg=where
                )
                final = infos["final_info"]
                result = [b - rules.starting_chips for b in ref.game.balances]
                assert list(final["results"][i]) == result, where
                assert final["chips"][i] == result[ref.learner] and final["seat"][i] == ref.learner, where
                assert final["deals"][i] == rules.num_deals, where
                assert list(final["seat_specs"][i]) == ref.specs, where
                ref.start(int(env.learner[i]), env.seat_specs(i))
            check_learner_view(env, i, ref, where)
            np.testing.assert_array_equal(obs[i], env.batch.observations[i], err_msg=where)
    assert ended >= tables, "the test must see sessions end and tables start the next"
    assert kinds == {"lowest", "greedy", snapshot}, "every kind of opponent must have played"


def test_rewards_of_a_session_sum_to_its_result():
    from newmarket_env import vector_env

    scale = 0.1
    env = vector_env(
        variant="michigan", num_players=4, num_envs=16, opponents=["control", "random"], reward_scale=scale, seed=0
    )
    env.reset(seed=4)
    totals = np.zeros(16)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        _obs, rewards, terminated, _trunc, infos = env.step(actions)
        totals += rewards
        for i in np.flatnonzero(terminated):
            chips = infos["final_info"]["chips"][i]
            assert totals[i] == pytest.approx(chips * scale)
            assert chips == infos["final_info"]["results"][i][infos["final_info"]["seat"][i]]
            totals[i] = 0
            checked += 1
    assert checked >= 16


def test_same_seed_same_run_and_gymnasium_info_layout():
    from gymnasium.utils.env_checker import data_equivalence
    from gymnasium.wrappers.vector import DictInfoToList

    from newmarket_env import vector_env

    def run():
        env = vector_env(variant="newbury", num_players=4, num_envs=5, opponents=["greedy", "control"], seed=8)
        listed = DictInfoToList(env)
        out = [listed.reset(seed=2)]
        rng = np.random.default_rng(5)
        for _ in range(120):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
            out.append(listed.step(actions))
        return out, env

    first, env = run()
    second, _ = run()
    assert data_equivalence(first, second)
    assert env.metadata["autoreset_mode"].value == "SameStep"
    assert env.observation_space.shape == (5, FLAT_SIZE) and env.observation_space.dtype == np.float32
    assert env.single_action_space.n == NUM_ACTIONS
    ends = [info for _o, _r, term, _t, infos in first[1:] for info, done in zip(infos, term, strict=True) if done]
    assert ends and all(set(info["final_info"]) >= {"chips", "deals", "seat", "results", "seat_specs"} for info in ends)
    assert all(env.observation_space.contains(step[0]) for step in first)


def test_unmasked_actions_are_replaced_by_the_lowest_legal_one():
    from newmarket_env import vector_env

    env = vector_env(num_envs=4, opponents=["lowest"], seed=1)
    env.reset(seed=1)
    twin = vector_env(num_envs=4, opponents=["lowest"], seed=1)
    twin.reset(seed=1)
    masks = env.action_masks()
    actions = np.array([NUM_ACTIONS + 3, -1, int(np.flatnonzero(~masks[2])[0]), int(np.flatnonzero(masks[3])[-1])])
    lowest = np.argmax(masks, axis=1)
    obs, rewards, _t, _tr, infos = env.step(actions)
    assert list(infos["illegal_action"]) == [True, True, True, False]
    obs2, rewards2, *_ = twin.step(np.array([lowest[0], lowest[1], lowest[2], actions[3]]))
    np.testing.assert_array_equal(obs, obs2)
    np.testing.assert_array_equal(rewards, rewards2)


def test_seat_modes_and_the_snapshot_share(tmp_path):
    from newmarket_env import vector_env

    rules = make_rules("newmarket", num_players=4)
    snap = saved_agent_file(tmp_path / "s.npz", rules, "newmarket")
    rng = np.random.default_rng(0)

    def sessions(env, steps=150):
        """(table, learner seat, seat specs) of every session started, in order."""
        env.reset(seed=0)
        seen = [(i, int(env.learner[i]), env.seat_specs(i)) for i in range(env.num_envs)]
        for _ in range(steps):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
            _o, _r, term, _t, _i = env.step(actions)
            seen += [(i, int(env.learner[i]), env.seat_specs(i)) for i in np.flatnonzero(term)]
        return seen

    rotated = sessions(vector_env(num_envs=4, seat="rotate", opponents=["control"], seed=0))
    for table in range(4):
        seats = [seat for i, seat, _s in rotated if i == table]
        assert len(seats) >= 3 and seats == [k % 4 for k in range(len(seats))]
    fixed = sessions(vector_env(num_envs=4, seat=2, opponents=["control"], seed=0), steps=60)
    assert {seat for _i, seat, _s in fixed} == {2}
    assert all(specs[2] is None and specs.count(None) == 1 for _i, _seat, specs in fixed)
    drawn = sessions(
        vector_env(num_envs=8, opponents=["control", "random"], snapshots=[snap], snapshot_fraction=0.5, seed=0)
    )
    opponents = [s for _i, _seat, specs in drawn for s in specs if s is not None]
    share = opponents.count(snap) / len(opponents)
    assert len(opponents) > 100 and 0.35 < share < 0.65
    assert {s for s in opponents if s != snap} == {"control", "random"}
    learners = [seat for _i, seat, _s in drawn]
    assert set(learners) == {0, 1, 2, 3}
    never = sessions(
        vector_env(num_envs=4, opponents=["random"], snapshots=[snap], snapshot_fraction=0.0, seed=0), steps=60
    )
    assert all(snap not in specs for _i, _seat, specs in never)


def test_set_snapshots_takes_effect_at_the_next_session(tmp_path):
    from newmarket_env import vector_env

    rules = make_rules("newmarket", num_players=4)
    snap = saved_agent_file(tmp_path / "s.npz", rules, "newmarket")
    env = vector_env(num_envs=4, opponents=["greedy"], snapshot_fraction=1.0, seed=0)
    env.reset(seed=0)
    assert all(env.seat_specs(i).count("greedy") == 3 for i in range(4))
    env.set_snapshots([snap])
    rng = np.random.default_rng(0)
    restarted = set()
    for _ in range(200):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        _o, _r, term, _t, _i = env.step(actions)
        for i in np.flatnonzero(term):
            assert env.seat_specs(i).count(snap) == 3
            restarted.add(int(i))
    assert restarted == {0, 1, 2, 3}
    with pytest.raises(ValueError, match=r"not a valid newmarket_env saved agent|unknown agent"):
        env.set_snapshots([str(tmp_path / "missing.npz")])
    assert env.snapshots == [snap]
    # a snapshot that left the pool and no table plays any more is forgotten, and reloaded when it comes back
    env.set_snapshots([])
    env.reset(seed=1)
    assert snap not in [s for i in range(4) for s in env.seat_specs(i)] and not env._agents
    env.set_snapshots([tmp_path / "s.npz"])  # a path object works as its string
    assert env.snapshots == [snap] and list(env._agents) == [env._spec_names.index(snap)]


def test_an_opponent_without_act_batch_plays_per_seat():
    """Agents other than saved networks (here ``search`` at a tiny budget) play one decision at a time."""
    from newmarket_env import vector_env

    env = vector_env(num_envs=2, opponents=["search"], seed=0)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(2):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        env.step(actions)
    assert env._seat_agents and all(key[0] == 0 for key in env._seat_agents)


BAD = [
    (dict(num_envs=0), r"num_envs=0 is out of range; allowed: an int >= 1"),
    (dict(num_envs=2.5), r"num_envs=2.5 is out of range"),
    (dict(opponents="random"), r"opponents='random' must be a non-empty list"),
    (dict(opponents=[]), r"opponents=\[\] must be a non-empty list"),
    (dict(opponents=["nobody"]), r"unknown agent 'nobody'.*known agents: "),
    (dict(seat="left"), r"seat='left' is unknown; allowed: random, rotate or a seat 0..3"),
    (dict(seat=4), r"seat=4 is unknown; allowed: random, rotate or a seat 0..3"),
    (dict(snapshot_fraction=1.5), r"snapshot_fraction=1.5 is out of range; allowed: 0.0..1.0"),
    (dict(snapshots="a.npz"), r"snapshots='a.npz' must be a list of saved-agent paths"),
    (dict(reward_scale=0), r"reward_scale=0 is out of range; allowed: a finite number > 0"),
    (dict(seed=-1), r"seed=-1 is not allowed; allowed: None or an int >= 0"),
    (dict(variant="whist"), r"unknown variant 'whist'; allowed variants: "),
    (dict(num_players=9), r"num_players=9 is out of range for 'newmarket'"),
    (dict(stakes=3), r"unknown rules parameter 'stakes'; allowed parameters: "),
]


@pytest.mark.parametrize("kwargs, message", BAD)
def test_bad_arguments_get_one_line_errors(kwargs, message):
    from newmarket_env import vector_env

    with pytest.raises(ValueError, match=message) as err:
        vector_env(**{"num_envs": 2, **kwargs})
    assert "\n" not in str(err.value)


def test_bad_steps_and_resets_change_nothing():
    from newmarket_env import vector_env

    env = vector_env(num_envs=3, opponents=["control"], seed=0)
    with pytest.raises(RuntimeError, match=r"step\(\) called before reset\(\)"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(RuntimeError, match=r"states\(\) called before reset\(\)"):
        env.states()
    obs, _ = env.reset(seed=0)
    for bad in (np.zeros(2, dtype=np.int64), np.zeros(3, dtype=np.float32), [[0, 0, 0]]):
        with pytest.raises(ValueError, match=r"actions must be 3 action ids") as err:
            env.step(bad)
        assert "\n" not in str(err.value)
    for seed in (-1, 2**32, 1.5, "x"):
        with pytest.raises(ValueError, match=r"seed=.* is out of range; allowed: an int 0..2\*\*32-1 or None"):
            env.reset(seed=seed)
    with pytest.raises(ValueError, match=r"options=.* is not supported; allowed: None"):
        env.reset(options={"deals": []})
    np.testing.assert_array_equal(env.batch.observations, obs)
    with pytest.raises(ValueError, match=r"table=3 is out of range; allowed: 0..2"):
        env.seat_specs(3)


def test_without_the_compiled_engine_the_error_names_the_fallback(monkeypatch):
    import sys

    from newmarket_env import vector_env

    monkeypatch.setitem(sys.modules, "newmarket_env.engine._batch", None)  # import fails as if never built
    with pytest.raises(RuntimeError, match=r"vector_env needs the compiled engine .* SingleAgentEnv") as err:
        vector_env(num_envs=2)
    assert "\n" not in str(err.value)


def _events(env, steps: int, next_step: bool) -> list[list]:
    """Each table's story under ``env``: observations, rewards, ends, with each session's final observation
    and the next session's first one, whatever the autoreset mode (the actions: the lowest legal one)."""
    obs, _ = env.reset(seed=6)
    stories: list[list] = [[("first", obs[i].tobytes())] for i in range(env.num_envs)]
    waiting = np.zeros(env.num_envs, dtype=bool)
    for _ in range(steps):
        masks = env.action_masks()
        actions = np.where(waiting, 0, np.argmax(masks, axis=1))
        obs, rewards, terminated, _, infos = env.step(actions)
        for i in range(env.num_envs):
            if next_step and waiting[i]:
                assert rewards[i] == 0 and not terminated[i] and not infos["illegal_action"][i]
                stories[i].append(("first", obs[i].tobytes()))
            elif terminated[i]:
                final = obs[i] if next_step else infos["final_obs"][i]
                chips = infos["chips"][i] if next_step else infos["final_info"]["chips"][i]
                stories[i].append(("final", final.tobytes(), rewards[i], chips))
                if not next_step:
                    stories[i].append(("first", obs[i].tobytes()))
            else:
                stories[i].append(("obs", obs[i].tobytes(), rewards[i]))
        waiting = terminated if next_step else waiting
    return stories


def test_next_step_autoreset_tells_the_same_sessions_one_step_later():
    """Gymnasium's NEXT_STEP mode (what RLlib's env runners expect): the final observation comes with
    ``terminated``, the next step ignores its action and starts the next session (reward 0). Table by
    table, the story is the SAME_STEP env's, the same seed and actions. (One opponent and rotating seats:
    the tables start their sessions in other groups in the two modes, and the env draws the seats of a
    group at once, so with several opponents the draws would differ.)"""
    from gymnasium.vector import AutoresetMode

    from newmarket_env import vector_env

    keywords = dict(variant="newmarket", num_players=4, num_envs=12, opponents=["control"], seat="rotate", seed=3)
    same = _events(vector_env(**keywords), 160, next_step=False)
    env = vector_env(**keywords, autoreset_mode="NextStep")
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    later = _events(env, 160 + 40, next_step=True)  # more steps: each session end costs one
    ended = 0
    for i, (a, b) in enumerate(zip(same, later, strict=True)):
        shortest = min(len(a), len(b))
        assert shortest > 100
        assert a[:shortest] == b[:shortest], f"table {i}"
        ended += sum(event[0] == "final" for event in a[:shortest])
    assert ended > 12  # sessions ended at every table, or nearly


def test_an_unknown_autoreset_mode_is_refused_in_one_line():
    from newmarket_env import vector_env

    with pytest.raises(ValueError, match=r"autoreset_mode='Disabled' is not supported; allowed: SameStep, NextStep"):
        vector_env(num_envs=2, autoreset_mode="Disabled")
