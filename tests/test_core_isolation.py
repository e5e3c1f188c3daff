"""The core (engine, observation, envs, the terminal game) runs with the agents, training and evaluation absent.

``agents/``, ``train/`` and ``eval/`` install inside the package (``newmarket_env.agents``, ...), so
nothing but discipline keeps the core from importing them. Here a fresh interpreter refuses those
packages with an import hook (a ``sys.meta_path`` finder that raises for them, before any other
finder is asked), then imports the core and plays through every view: the AEC env to the end of a
session, ``SingleAgentEnv`` made by ``gymnasium.make`` with an agent factory, the compiled
``VectorEnv`` with one, a terminal session and a watched one. The hook also records every attempt, so a core
module that tries the agents and quietly falls back is caught too.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

HANG_GUARD_S = 300  # only so a hung child fails instead of hanging; never an assertion on speed

CORE_ONLY = textwrap.dedent('''
    import json, sys
    from importlib.abc import MetaPathFinder

    BLOCKED = ("newmarket_env.agents", "newmarket_env.train", "newmarket_env.eval", "agents", "train", "eval")
    asked = []

    def refused(name):
        return name.split(".")[0] in BLOCKED or ".".join(name.split(".")[:2]) in BLOCKED

    class Refuse(MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if refused(name):
                asked.append(name)
                raise ModuleNotFoundError(f"No module named {name!r} (refused by the test)", name=name)
            return None

    sys.meta_path.insert(0, Refuse())

    import gymnasium
    import newmarket_env
    import newmarket_env.engine, newmarket_env.observation, newmarket_env.render
    from newmarket_env.envs import GYMNASIUM_ID, SingleAgentEnv, VectorEnv
    from newmarket_env.play.session import PlayOptions, play, prepare
    from newmarket_env.play.watch import WatchOptions, WatchTable, watch

    # Every module of the core imports (play/ is the terminal front end, built on the envs).
    import importlib, pkgutil
    core = ("game", "engine", "observation", "describe", "records", "render", "envs", "play")
    for package in core:
        root = importlib.import_module(f"newmarket_env.{package}")
        for module in pkgutil.walk_packages(root.__path__, prefix=f"newmarket_env.{package}."):
            importlib.import_module(module.name)
    core_modules = sorted(m for m in sys.modules if m.startswith("newmarket_env.") and m.split(".")[1] in core)

    class Lowest:
        """A stand-in agent written here: the lowest legal action."""
        def __init__(self, rules):
            self.rules, self.resets, self.moves = rules, 0, 0
        def reset(self):
            self.resets += 1
        def act(self, observation):
            self.moves += 1
            return int(observation["action_mask"].nonzero()[0][0])

    built = []
    def factory(spec, *, env, seed):
        built.append((spec, type(env).__name__, isinstance(seed, int)))
        return Lowest(env.unwrapped.rules if hasattr(env, "unwrapped") else env.rules)

    out = {"core_modules": core_modules}

    # The AEC env: one session to its end.
    aec = newmarket_env.env(num_players=4, num_deals=1)
    aec.reset(seed=3)
    steps = 0
    for agent in aec.agent_iter():
        observation, _, terminated, truncated, _ = aec.last()
        aec.step(None if terminated or truncated else int(observation["action_mask"].nonzero()[0][0]))
        steps += 1
    out["aec_steps"] = steps

    # The single-agent view, through Gymnasium's registry, with the opponents from our factory.
    single = gymnasium.make(GYMNASIUM_ID, num_players=4, num_deals=1, opponents=["lowest-here"],
                            agent_factory=factory)
    obs, info = single.reset(seed=5)
    done, decisions, total = False, 0, 0.0
    while not done:
        obs, reward, terminated, truncated, info = single.step(int(info["action_mask"].nonzero()[0][0]))
        done, decisions, total = terminated or truncated, decisions + 1, total + reward
    out["single_decisions"] = decisions
    out["single_return_is_chips"] = total == info["chips"]
    out["single_opponents"] = info["opponents"]

    # The compiled vector env: a compiled baseline, and a seat built by the factory.
    try:
        import newmarket_env.engine._batch  # noqa: F401
    except ImportError:
        out["vector_steps"] = None
    else:
        vec = VectorEnv(num_players=4, num_envs=3, opponents=["control", "lowest-here"], agent_factory=factory, seed=1)
        vec.reset(seed=1)
        for _ in range(40):
            vec.step(vec.action_masks().argmax(axis=1))
        out["vector_steps"] = 40

    # The terminal game, the person answering "1" (the first choice) at every decision.
    table = prepare(PlayOptions(num_players=4, seed=2, agents=["lowest-here"], overrides={"num_deals": 1}),
                    agent_factory=factory)
    lines = []
    out["play_exit"] = play(table, read=lambda prompt: "1", write=lines.append)
    out["play_finished"] = any(line.startswith("final balances") for line in lines)
    out["play_agent_moves"] = sum(agent.moves for agent in table.opponents.values())

    # Agents against agents (newmarket watch), every seat from the factory.
    watched = WatchTable(WatchOptions(num_players=4, seed=3, agents=["lowest-here"], overrides={"num_deals": 1}),
                         agent_factory=factory)
    lines = []
    out["watch_exit"] = watch(watched, write=lines.append, sleep=lambda seconds: None)
    out["watch_agent_moves"] = sum(agent.moves for agent in watched.agents)

    out["built"] = sorted(set(built))
    out["asked_before_default"] = list(asked)

    # Without a factory the views ask the facade, which says in one line what is missing.
    try:
        SingleAgentEnv(num_players=4, opponents=["random"]).reset(seed=0)
    except ModuleNotFoundError as err:
        out["default_factory_error"] = str(err)
    out["loaded"] = sorted(m for m in sys.modules if refused(m))
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def core_only(tmp_path_factory) -> dict:
    """What the script above saw, run once (outside the repository, so its folders are not on the path)."""
    done = subprocess.run(
        [sys.executable, "-c", CORE_ONLY],
        capture_output=True,
        text=True,
        cwd=tmp_path_factory.mktemp("core_only"),
        timeout=HANG_GUARD_S,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_core_plays_every_view_without_agents_train_or_eval(core_only):
    out = core_only
    # Nothing of the refused packages was asked for while the core was imported and played.
    assert out["asked_before_default"] == []
    assert out["loaded"] == []
    assert {
        "newmarket_env.engine.game",
        "newmarket_env.observation.encode",
        "newmarket_env.envs.vector",
        "newmarket_env.play.arguments",
        "newmarket_env.records.paging",
    } <= set(out["core_modules"])
    assert out["aec_steps"] > 4  # a session of 4 players has more moves than its 4 final turns
    assert out["single_decisions"] > 0 and out["single_return_is_chips"]
    assert out["single_opponents"] == ["lowest-here"] * 3
    assert out["play_exit"] == 0 and out["play_finished"] and out["play_agent_moves"] > 0
    assert out["watch_exit"] == 0 and out["watch_agent_moves"] > 0
    # Every view built its opponents with the factory it was given.
    kinds = {env for _, env, _ in map(tuple, out["built"])}
    assert {"raw_env", "OrderEnforcing"} <= kinds
    assert all(spec == "lowest-here" and seeded for spec, _, seeded in out["built"])
    if out["vector_steps"] is not None:
        assert "VectorEnv" in kinds


def test_without_agents_the_default_factory_names_the_keyword(core_only):
    assert core_only["default_factory_error"] == (
        "opponent 'random' needs the agents (newmarket_env.agents), which cannot be imported here; "
        "pass agent_factory= (a callable factory(spec, env=..., seed=...) -> agent)"
    )
