"""A refused config value's message names the whole allowed range, word for word."""

from __future__ import annotations

import pytest

from newmarket_env.train.config import config_from_dict


@pytest.mark.parametrize(
    "data, message",
    [
        (
            {"ppo": {"net_arch": list(range(1, 18))}},
            "ppo.net_arch = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17] is not allowed; "
            "allowed: a list of int in 1..4096, at most 16 of them",
        ),
        (
            {"expert": {"net_arch": []}},
            "expert.net_arch = [] is not allowed; allowed: a list of int in 1..4096, at most 16 of them",
        ),
        ({"ppo": {"activation": "gelu"}}, "ppo.activation = 'gelu' is not allowed; allowed: tanh, relu"),
        ({"ppo": {"gamma": 1.5}}, "ppo.gamma = 1.5 is not allowed; allowed: float in 0.0..1.0"),
    ],
)
def test_the_message_names_the_allowed_values(data, message):
    with pytest.raises(ValueError) as caught:
        config_from_dict(data)
    assert str(caught.value) == message
