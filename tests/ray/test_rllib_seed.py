"""RLlib self-play runs by seed: what a seed makes reproducible, checked (docs/training/methods/rllib_ppo.md,
"Its seed", says what it does not).

Two runs of one seed, each in its own freshly built algorithm, must deal the same sessions, seat the
learner alike, and so sample the same steps and learn the same weights; the env's deals after the
first reset come from the seeded stream.
"""

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install 'newmarket-env[ray]')")

from newmarket_env.integrations.rllib import LEARNER, NewmarketMultiAgentEnv, SelfPlayMapping, self_play_config

TINY = dict(batch_size=128, minibatch_size=64, num_epochs=1, hidden=(32,))


def test_seeded_resets_deal_the_same_sessions_after_the_first():
    def deals(seed: int) -> list:
        env = NewmarketMultiAgentEnv({})
        env.reset(seed=seed)
        hands = [env.aec.game.hands[:]]
        for _ in range(3):  # later resets unseeded, as RLlib's env runner does them
            env.reset()
            hands.append(env.aec.game.hands[:])
        return hands

    first = deals(5)
    assert deals(5) == first
    assert len({tuple(h) for h in first}) == len(first)  # and each reset a new deal


def test_the_learner_seat_depends_on_the_seed_not_on_the_random_episode_ids():
    ids = [f"{n:032x}" for n in np.random.default_rng().integers(2**62, size=50)]  # as uuid4 hex, random
    other_ids = [f"{n:032x}" for n in np.random.default_rng().integers(2**62, size=50)]
    one, two = SelfPlayMapping(4, seed=1), SelfPlayMapping(4, seed=1)
    seats = [one.learner_seat(i) for i in ids]
    assert [two.learner_seat(i) for i in other_ids] == seats
    assert [one.learner_seat(i) for i in ids] == seats  # an episode keeps its seat
    assert set(seats) == {0, 1, 2, 3}


def _run(seed: int, iterations: int = 2) -> tuple[list, list]:
    algo = self_play_config(seed=seed, **TINY).build_algo()
    try:
        returns = []
        for _ in range(iterations):
            result = algo.train()["env_runners"]
            returns.append((result["num_env_steps_sampled"], result["module_episode_returns_mean"][LEARNER]))
        weights = algo.learner_group.get_weights(module_ids=[LEARNER])[LEARNER]
        return returns, [np.asarray(weights[k]) for k in sorted(weights)]
    finally:
        algo.stop()


@pytest.mark.slow
def test_two_runs_of_one_seed_sample_and_learn_the_same(ray_cluster):
    returns, weights = _run(3)
    again, weights_again = _run(3)
    assert again == returns
    assert all(np.array_equal(a, b) for a, b in zip(weights, weights_again, strict=True))


@pytest.mark.slow
def test_a_seeded_run_deals_a_new_session_every_episode(ray_cluster, monkeypatch):
    # RLlib 2.60 passes the runner's seed to every reset in batch_mode="complete_episodes": without the
    # SelfPlay callback forgetting it once the first episode has started, every session was the same deal.
    deals = []
    reset = NewmarketMultiAgentEnv.reset

    def recording_reset(self, *, seed=None, options=None):
        out = reset(self, seed=seed, options=options)
        deals.append(tuple(self.aec.game.hands))
        return out

    monkeypatch.setattr(NewmarketMultiAgentEnv, "reset", recording_reset)
    algo = self_play_config(seed=0, rules={"num_deals": 1}, **TINY).build_algo()  # env runner in this process
    try:
        algo.train()
    finally:
        algo.stop()
    assert len(deals) > 5 and len(set(deals)) == len(deals)
