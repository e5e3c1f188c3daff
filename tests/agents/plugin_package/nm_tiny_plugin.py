"""A plugin's agents: the highest legal action, as a class and as a factory with an option."""

import numpy as np

from newmarket_env.agents import Agent


class HighestAction(Agent):
    name = "tiny-highest"

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[-1])


def make(rules, seed=None, lowest=False):
    """``lowest=True`` plays the lowest legal action instead."""
    agent = HighestAction(rules, seed)
    if lowest:
        agent.act = lambda observation: int(np.flatnonzero(observation["action_mask"])[0])
    return agent
