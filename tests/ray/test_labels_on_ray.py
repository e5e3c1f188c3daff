"""Expert-iteration labels computed as Ray tasks on a real two-node cluster equal the local ones."""

import numpy as np
import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install 'newmarket-env[ray]')")

from newmarket_env.engine.choice import compiled_available
from newmarket_env.game.rules import make_rules

pytestmark = pytest.mark.skipif(not compiled_available(), reason="labelling needs the compiled engine")


def test_ray_labels_equal_the_local_ones_for_both_teachers(ray_cluster):
    from newmarket_env.game.actions import NUM_ACTIONS
    from newmarket_env.observation.layout import FLAT_SIZE
    from newmarket_env.train.collect import collect_states
    from newmarket_env.train.expert.label import CHUNK, Teacher, label_states

    rules = make_rules("newmarket", 4)
    states = collect_states(rules, None, "control", [], 0.0, tables=4, count=2 * CHUNK + 5, seed=9, reward_scale=0.1)
    rng = np.random.default_rng(0)
    policy = {
        "metadata": {"activation": "tanh"},
        "layers": [(rng.normal(size=(NUM_ACTIONS, FLAT_SIZE)).astype(np.float32), np.zeros(NUM_ACTIONS, np.float32))],
    }
    seeds = list(range(len(states.returns)))
    for teacher in (
        Teacher(rules, "search", budget=3, max_candidates=3),
        Teacher(rules, "guided_search", budget=2, max_candidates=3, policy=policy),
    ):
        local = label_states(teacher, states.obs, states.masks, seeds)
        on_ray = label_states(teacher, states.obs, states.masks, seeds, workers=2, backend="ray")
        np.testing.assert_array_equal(local[0], on_ray[0])
        np.testing.assert_array_equal(local[1], on_ray[1])  # three chunks, spread over the two nodes
