"""The training config reads the learner seat's modes and the variants from their one definition, and
builds the training tables through one LearnerSeat."""

from __future__ import annotations

import pytest

from newmarket_env.envs.learner_options import SEAT_MODES, LearnerSeat
from newmarket_env.game.rules import VARIANTS
from newmarket_env.train.config import EnvSection, config_from_dict


def test_the_config_offers_exactly_the_variants_and_seat_modes_the_package_defines():
    fields = EnvSection.__dataclass_fields__
    assert fields["seat"].metadata["choices"] is SEAT_MODES
    assert list(fields["variant"].metadata["choices"]) == list(VARIANTS)
    for name, variant in VARIANTS.items():  # every preset of the rules module loads, at its default player count
        loaded = config_from_dict({"env": {"variant": name, "num_players": variant.default_players}})
        assert loaded.env.variant == name
    with pytest.raises(ValueError, match=r"^env\.variant.*" + ", ".join(VARIANTS)):
        config_from_dict({"env": {"variant": "whist"}})


def test_one_learner_seat_reaches_both_kinds_of_training_table():
    config = config_from_dict(
        {
            "env": {"variant": "michigan", "num_players": 5, "seat": "rotate", "reward_scale": 0.5},
            "opponents": {"baselines": ["control", "greedy"], "snapshot_fraction": 0.25},
        }
    )
    seat = config.learner_seat()
    assert seat == LearnerSeat(opponents=("control", "greedy"), snapshot_fraction=0.25, seat="rotate", reward_scale=0.5)
    keywords = config.table_keywords()
    assert keywords["learner_seat"] == seat and keywords["variant"] == "michigan" and keywords["num_players"] == 5
    from newmarket_env.train.ppo.learner import make_env

    env = make_env(config, 0)
    assert (env.opponents, env.seat_mode, env.reward_scale, env.snapshot_fraction) == (
        ["control", "greedy"],
        "rotate",
        0.5,
        0.25,
    )
    assert env.n == 5 and env.variant == "michigan"
