"""TorchRL's PettingZooWrapper runs the AEC env: a collector gathers a batch of real steps, one seat acting
in each, always a legal action, and the rewards of a session add up to its chips."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from torchrl.collectors import Collector  # noqa: E402

from newmarket_env.integrations.torchrl import masked_random_policy, torchrl_env  # noqa: E402
from newmarket_env.observation.view import decode  # noqa: E402

FRAMES = 200


@pytest.fixture(scope="module")
def batch():
    table = torchrl_env(variant="newmarket", num_players=4, seed=0)
    collector = Collector(table, masked_random_policy(table, seed=1), frames_per_batch=FRAMES, total_frames=FRAMES)
    try:
        return next(iter(collector))
    finally:
        collector.shutdown()


def test_a_batch_holds_one_legal_decision_a_frame(batch):
    assert batch.batch_size == torch.Size([FRAMES])
    acting = batch["agents", "mask"]  # (frames, seats)
    assert acting.shape == (FRAMES, 4) and bool((acting.sum(-1) == 1).all())
    seat = acting.float().argmax(-1)
    frames = torch.arange(FRAMES)
    action = batch["agents", "action"][frames, seat]
    legal = batch["agents", "action_mask"][frames, seat]
    assert bool(legal[frames, action].all())
    assert batch["agents", "observation", "observation"].shape == (FRAMES, 4, 936)


def test_a_sessions_rewards_are_its_chips(batch):
    """The rewards TorchRL collected for each seat over the batch's first session add up to the chips that
    seat won or lost, as its own last observation of the session shows them (decoded by the package)."""
    done = batch["next", "done"].squeeze(-1)
    assert bool(done.any()), f"no session ended within {FRAMES} frames"
    end = int(torch.nonzero(done)[0])
    rewards = batch["next", "agents", "reward"][: end + 1].squeeze(-1).sum(0)
    last = batch["next", "agents", "observation", "observation"][end]
    chips = [
        decode({"observation": last[seat].numpy(), "action_mask": np.zeros(79, np.int8)}).balances[0]
        for seat in range(4)
    ]
    np.testing.assert_array_equal(rewards.numpy(), np.array(chips) - 40)
    assert rewards.sum() == 0 and rewards.abs().sum() > 0  # newmarket with lots: the chips stay at the table
