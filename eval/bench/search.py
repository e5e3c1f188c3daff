"""Workloads of the ``search`` agent: whole sessions with search at seat 0 and ``control`` at the others.

Sessions cycle through newmarket, michigan and newbury (session seed modulo 3),
as the figures of issue 11 were measured; a decision is one ``act`` of the
search agent (the control seats' decisions are not counted, though they are
timed). ``engine="python"`` rows run the pure-Python search for the ratio.
"""

from __future__ import annotations

from newmarket_env.eval.bench.ours import PLAYERS

SEARCH_VARIANTS = ("newmarket", "michigan", "newbury")


def search_player(budget: int, engine: str = "auto"):
    """Sessions of ``search`` (the given budget and engine) against three ``control`` seats."""
    from newmarket_env import env as make_env
    from newmarket_env.agents import load_agent
    from newmarket_env.engine.choice import compiled_available

    if engine != "python" and not compiled_available():
        return None, "skipped: the compiled engine is not built"
    envs = {variant: make_env(variant=variant, num_players=PLAYERS) for variant in SEARCH_VARIANTS}

    def play(seed: int) -> int:
        e = envs[SEARCH_VARIANTS[seed % len(SEARCH_VARIANTS)]]
        e.reset(seed=seed)
        seats = [load_agent("search", env=e, seed=seed, budget=budget, engine=engine)]
        seats += [load_agent("control", env=e, seed=seed + s) for s in range(1, PLAYERS)]
        decisions = 0
        for agent in e.agent_iter():
            observation, _reward, termination, truncation, _info = e.last()
            if termination or truncation:
                e.step(None)
                continue
            seat = int(agent.rsplit("_", 1)[1])
            decisions += seat == 0
            e.step(seats[seat].act(observation))
        return decisions

    return play, f"search budget {budget} ({engine}) at seat 0, control at the others; newmarket/michigan/newbury"
