"""The benchmark's "measured agent at seat 0, control at the others" sessions, written once for its rows."""

from __future__ import annotations

from newmarket_env import load_agent, make_rules
from newmarket_env.eval.bench.drivers import seat_zero_player


class Counting:
    """The ``random`` agent, counting its decisions and remembering the env it was seated in."""

    def __init__(self, env, seed: int) -> None:
        self.inner = load_agent("random", env=env, seed=seed)
        self.env = env
        self.acts = 0

    def reset(self) -> None:
        self.inner.reset()

    def act(self, observation):
        self.acts += 1
        return self.inner.act(observation)


def test_counts_the_decisions_of_seat_zero_and_cycles_the_variants():
    seated: list[Counting] = []

    def measured(env, seed: int) -> Counting:
        seated.append(Counting(env, seed))
        return seated[-1]

    play = seat_zero_player(measured, ("newmarket", "michigan"), players=4)
    decisions = [play(seed) for seed in range(3)]
    first, second, third = (agent.env for agent in seated)
    assert first is third and first is not second  # one env per variant, taken by seed modulo 2
    assert first.unwrapped.rules == make_rules("newmarket", 4) and second.unwrapped.rules == make_rules("michigan", 4)
    assert decisions == [agent.acts for agent in seated] and all(n > 0 for n in decisions)
    # only seat 0's decisions are counted, though the other seats decided too (they played cards)
    events = [event for deal in third.unwrapped.game.deals for event in deal["events"]]
    assert {event["seat"] for event in events if event["type"] == "play"} > {0}
