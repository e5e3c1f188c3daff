"""Deep Monte-Carlo's actors as Ray actors on the two-node cluster (``dmc.backend: ray``), DouZero's layout.

The decisions of an iteration depend on ``dmc.actors``, not on where the actors run: the same tiny run
with two actors in this process and with two Ray actors, one per node, must end with the same weights
bit for bit. An actor killed between iterations is restarted by Ray and plays its share again alike.
"""

from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'newmarket-env[ray]')")
pytest.importorskip("torch", reason="DMC trains a torch network")

from newmarket_env.engine.choice import compiled_available  # noqa: E402
from newmarket_env.train.cli import main  # noqa: E402

pytestmark = pytest.mark.skipif(not compiled_available(), reason="DMC's actors play the compiled batch")

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_dmc.yaml"


def _progress(path: Path) -> list[list[str]]:
    import csv

    with open(path, newline="") as handle:
        return [
            [r[k] for k in ("iteration", "steps", "samples", "mean_return", "loss")] for r in csv.DictReader(handle)
        ]


@pytest.mark.slow
def test_two_ray_actors_on_two_nodes_learn_what_two_local_actors_learn(ray_cluster, tmp_path):
    from newmarket_env.agents.saved import read_saved

    common = [str(TINY), "--no-progress", "--set", "dmc.actors=2", "--set", "eval.every=0", "--set", "run.threads=1"]
    assert main([*common, "--out-dir", str(tmp_path / "local"), "--set", "eval.final_sessions=1"]) == 0
    assert main([*common, "--out-dir", str(tmp_path / "ray"), "--set", "eval.final_sessions=1",
                 "--set", "dmc.backend=ray"]) == 0  # fmt: skip
    (_, local), (_, remote) = (read_saved(tmp_path / name / "final.npz") for name in ("local", "ray"))
    for (w1, b1), (w2, b2) in zip(local, remote, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    assert _progress(tmp_path / "local" / "progress.csv") == _progress(tmp_path / "ray" / "progress.csv")
    assert ray.is_initialized()  # the run used the session's cluster and left it running


@pytest.mark.slow
def test_the_actors_spread_over_the_nodes_and_a_killed_actor_plays_its_share_again(ray_cluster):
    import torch

    from newmarket_env.game.rules import make_rules
    from newmarket_env.train.config import load_config
    from newmarket_env.train.dmc.actors import LocalActors, RayActors, numpy_weights
    from newmarket_env.train.dmc.fit import q_network

    config = load_config(TINY)
    config.dmc.actors, config.dmc.backend, config.run.threads = 2, "ray", 1
    rules = make_rules("newmarket", 4, num_deals=1)
    torch.manual_seed(0)
    weights = numpy_weights(q_network([16], "relu"))
    actors = RayActors(config, rules)
    try:
        nodes = ray.get(
            [a.__ray_call__.remote(lambda self: ray.get_runtime_context().get_node_id()) for a in actors.actors]
        )
        assert len(set(nodes)) == 2  # one actor on each node (SPREAD)
        first = actors.collect(weights, iteration=3)
        ray.kill(actors.actors[0], no_restart=False)  # its process dies; Ray starts it again
        again = actors.collect(weights, iteration=3)
        here = LocalActors(config, rules).collect(weights, iteration=3)
        for name in ("obs", "masks", "returns", "actions"):
            np.testing.assert_array_equal(getattr(first, name), getattr(again, name), err_msg=name)
            np.testing.assert_array_equal(getattr(first, name), getattr(here, name), err_msg=name)
        assert len(first.actions) == config.dmc.states
    finally:
        actors.close()
    assert ray.is_initialized()  # close() leaves a cluster it joined running
