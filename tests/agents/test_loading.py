"""Loading agents by name, bad input, determinism, and blindness to hidden cards."""

import pytest

from newmarket_env import available_agents, env, load_agent
from tests.agents.helpers import deal, first_observation, play

NAMES = ("lowest", "greedy", "control", "search")


def test_every_agent_is_registered():
    assert set(NAMES) | {"random"} <= set(available_agents())


def test_an_unknown_name_raises_naming_the_known_agents():
    e = env(variant="newmarket")
    with pytest.raises(ValueError, match=r"known agents: .*control.*greedy.*lowest.*random.*search"):
        load_agent("grandmaster", env=e)


@pytest.mark.parametrize(
    "options,match",
    [({"budget": 0}, "budget"), ({"rollout": "oracle"}, "rollout"), ({"max_candidates": 1}, "max_candidates")],
)
def test_bad_search_options_raise(options, match):
    with pytest.raises(ValueError, match=match):
        load_agent("search", env=env(variant="newmarket"), **options)


def test_baselines_take_no_options():
    with pytest.raises(ValueError, match="takes no options"):
        load_agent("control", env=env(variant="newmarket"), budget=3)


@pytest.mark.parametrize("variant", ["michigan", "newbury"])
def test_search_is_deterministic_for_a_seed(variant):
    runs = [
        play(variant, 4, ["search", "control", "search", "greedy"], 3, kwargs={"budget": 2}, num_deals=1)
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


# Seat 1 leads first (dealer 0). Seats 2 and 3 swap cards between two worlds with the same public state.
MINE = ["2C", "3C", "4C", "QH", "KH", "7D", "9D", "6S", "8S", "TS"]
SEAT0 = ["3S", "5S", "7S", "9S", "JS", "4D", "6D", "8D", "TD", "QD"]
SEAT2 = ["5C", "7C", "9C", "JC", "2H", "4H", "6H", "8H", "3D", "5D"]
SEAT3 = ["6C", "8C", "TC", "QC", "3H", "5H", "7H", "9H", "2D", "KD"]


@pytest.mark.parametrize("name", NAMES)
def test_an_agent_never_sees_the_hidden_cards(name):
    e = env(variant="arnold2011", num_players=4)
    world_a = deal(0, [SEAT0, MINE, SEAT2, SEAT3])
    world_b = deal(0, [SEAT0, MINE, SEAT3, SEAT2])  # two other hands swapped
    world_c = deal(0, [SEAT0, MINE, SEAT2[:5] + SEAT3[5:], SEAT3[:5] + SEAT2[5:]])  # mixed
    choices = []
    for world in (world_a, world_b, world_c):
        obs = first_observation(e, [world])
        agent = load_agent(name, env=e, seed=4, **({"budget": 8} if name == "search" else {}))
        choices.append((obs["observation"].tobytes(), agent.act(obs)))
    assert choices[0] == choices[1] == choices[2]
