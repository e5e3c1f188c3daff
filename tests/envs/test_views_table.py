"""The table "Every view side by side" of docs/guide/environment.md against the views themselves.

Each view is played for real (both ``illegal_action`` modes where it has them); what it emits (the info
keys, the masks' dtypes, the observation shapes, truncation, what an illegal action does) must be what
its row of the table says. The page's code blocks run too.
"""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import newmarket_env
from newmarket_env import env, make_rules
from newmarket_env.engine.choice import compiled_available, table_batch
from newmarket_env.engine.types import IllegalActionError
from newmarket_env.envs.masks import MASK_DTYPE

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "environment.md"
ROWS = ("AEC", "One learner", "Vector env", "SB3", "Batch", "RLlib", "OpenSpiel")
KEY = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]*)`")
needs_compiled = pytest.mark.skipif(not compiled_available(), reason="the compiled engine is not built")


def views_table() -> dict[str, dict[str, str]]:
    """The table's rows by the first words of their view cell, each a dict of column -> cell."""
    lines = PAGE.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("<!-- the views table"))

    def cells(line: str) -> list[str]:
        return [cell.strip() for cell in line.strip().strip("|").split(" | ")]

    header = cells(lines[start + 1])
    rows = {}
    for line in lines[start + 3 :]:
        if not line.startswith("|"):
            break
        row = dict(zip(header, cells(line), strict=True))
        name = next(name for name in ROWS if row["view"].startswith(name))
        rows[name] = row
    return rows


TABLE = views_table()


def documented_keys(view: str) -> set[str]:
    cell = TABLE[view]["info keys"]
    return set() if cell.startswith("none") else set(KEY.findall(cell))


def documented_dtypes(view: str) -> set[str]:
    return {word for word in ("int8", "bool") if re.search(rf"\b{word}\b", TABLE[view]["mask"])}


def documented_modes(view: str) -> tuple[str, set[str]]:
    """The default mode and every mode the row offers."""
    cell = TABLE[view]["illegal action"]
    if cell.startswith("as the vector env"):
        return documented_modes("Vector env")
    default = re.match(r"(raise|replace) (\(default\)|only)", cell)
    assert default, cell
    offered = {default.group(1), *re.findall(r"\bor (raise|replace)\b", cell)}
    return default.group(1), offered


def plain(keys) -> set[str]:
    """Gymnasium's vector infos pair each key with ``_key``: both are the key named in the table."""
    return {key.lstrip("_") for key in keys}


def test_the_table_has_a_row_per_view_and_every_column():
    assert list(TABLE) == list(ROWS)
    columns = ["view", "observation", "mask", "reward", "termination", "truncation", "info keys", "illegal action"]
    assert all(list(row) == columns for row in TABLE.values())


# ---------------------------------------------------------------------------------------------- AEC
def play_aec(mode: str | None, seed: int = 0, illegal_at: int = 2):
    """A session of the AEC env; returns (info keys, mask dtypes, truncated ever, flag seen after an illegal step)."""
    kwargs = {} if mode is None else {"illegal_action": mode}
    e = env(num_players=4, num_deals=1, **kwargs)
    e.reset(seed=seed)
    keys, dtypes, truncated, flagged = set(), set(), False, None
    for step, agent in enumerate(e.agent_iter()):
        obs, _, term, trunc, info = e.last()
        for other in e.agents:
            keys |= set(e.infos[other])
        dtypes |= {obs["action_mask"].dtype, info["action_mask"].dtype}
        truncated |= trunc
        if term or trunc:
            e.step(None)
            continue
        if step == illegal_at:
            e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # raises in raise mode
            flagged = e.infos[agent].get("illegal_action")
            continue
        e.step(int(e.action_space(agent).sample(obs["action_mask"])))  # Gymnasium's masked sample takes the mask
    return keys, dtypes, truncated, flagged


def test_aec_row():
    default, offered = documented_modes("AEC")
    assert offered == {"raise", "replace"}
    with pytest.raises(IllegalActionError):
        play_aec(None)
    keys, dtypes, truncated, flagged = play_aec("replace")
    assert flagged is True
    raise_keys, raise_dtypes, _, _ = play_aec("raise", illegal_at=-1)
    assert default == "raise"
    assert keys | raise_keys == documented_keys("AEC")
    assert {np.dtype(d).name for d in dtypes | raise_dtypes} == documented_dtypes("AEC") == {"int8"}
    assert not truncated and TABLE["AEC"]["truncation"].startswith("never")
    planes = env(num_players=4, observation="planes")
    planes.reset(seed=0)
    for shape in (
        env(num_players=4).observation_space("player_0")["observation"].shape,
        planes.last()[0]["observation"].shape,
    ):
        assert str(tuple(shape)) in TABLE["AEC"]["observation"]


# --------------------------------------------------------------------------------------- one learner
def play_single(mode: str | None, seed: int = 0):
    kwargs = {} if mode is None else {"illegal_action": mode}
    e = gymnasium.make("stops/Michigan-v0", num_players=4, opponents=["random"], num_deals=1, **kwargs)
    obs, info = e.reset(seed=seed)
    keys, dtypes, truncated, flags = set(info), {info["action_mask"].dtype}, False, []
    methods = {e.unwrapped.action_masks().dtype}
    done, first = False, True
    while not done:
        mask = info["action_mask"]
        action = int(np.flatnonzero(mask == 0)[0]) if first else int(e.action_space.sample(mask))
        first = False
        obs, _, terminated, trunc, info = e.step(action)
        keys |= set(info)
        dtypes.add(info["action_mask"].dtype)
        flags.append(info.get("illegal_action"))
        truncated |= trunc
        done = terminated or trunc
    return keys, dtypes, methods, truncated, flags, obs.shape


def test_one_learner_row():
    default, offered = documented_modes("One learner")
    assert default == "replace" and offered == {"raise", "replace"}
    keys, dtypes, methods, truncated, flags, shape = play_single(None)
    assert flags[0] is True and not any(flags[1:])  # replaced by default, flagged once
    with pytest.raises(IllegalActionError):
        play_single("raise")
    e = gymnasium.make("stops/Michigan-v0", num_players=4, illegal_action="raise", num_deals=1)
    _, info = e.reset(seed=1)
    raise_keys = set(info)
    while True:
        _, _, terminated, _, info = e.step(int(e.action_space.sample(info["action_mask"])))
        raise_keys |= set(info)
        if terminated:
            break
    assert "illegal_action" not in raise_keys
    assert keys | raise_keys == documented_keys("One learner")
    names = {np.dtype(d).name for d in dtypes} | {np.dtype(d).name for d in methods}
    assert names == documented_dtypes("One learner") == {"int8", "bool"}
    assert {np.dtype(d).name for d in dtypes} == {np.dtype(MASK_DTYPE).name}
    assert not truncated and str(shape) in TABLE["One learner"]["observation"]


# ---------------------------------------------------------------------------------------- vector env
def play_vector(mode: str | None, steps: int = 60, tables: int = 4):
    kwargs = {} if mode is None else {"illegal_action": mode}
    envs = gymnasium.make_vec(
        "stops/Michigan-v0", num_envs=tables, num_players=4, opponents=["control"], num_deals=1, **kwargs
    )
    obs, infos = envs.reset(seed=0)
    keys, dtypes, truncated, ended, flags = plain(infos), {infos["action_mask"].dtype}, False, 0, []
    methods = {envs.action_masks().dtype}
    for step in range(steps):
        actions = envs.action_space.sample(mask=tuple(infos["action_mask"]))
        if step == 0:
            actions[0] = int(np.flatnonzero(infos["action_mask"][0] == 0)[0])
        obs, _, terminated, trunc, infos = envs.step(actions)
        keys |= plain(infos)
        if "final_info" in infos:
            keys |= plain(infos["final_info"])
        dtypes.add(infos["action_mask"].dtype)
        flags.append(infos.get("illegal_action"))
        truncated |= bool(trunc.any())
        ended += int(terminated.sum())
    assert ended > 0  # the keys of a session's end were seen
    return keys, dtypes, methods, truncated, flags, obs.shape


@needs_compiled
def test_vector_env_row():
    default, offered = documented_modes("Vector env")
    assert default == "replace" and offered == {"raise", "replace"}
    keys, dtypes, methods, truncated, flags, shape = play_vector(None)
    assert flags[0].tolist() == [True, False, False, False] and not any(f.any() for f in flags[1:])
    with pytest.raises(IllegalActionError):
        play_vector("raise")
    envs = gymnasium.make_vec("stops/Michigan-v0", num_envs=2, num_players=4, illegal_action="raise", num_deals=1)
    _, infos = envs.reset(seed=0)
    assert "illegal_action" not in infos
    assert keys == documented_keys("Vector env")
    names = {np.dtype(d).name for d in dtypes | methods}
    assert names == documented_dtypes("Vector env") == {"int8", "bool"}
    assert not truncated and f"(N, {shape[1]})" in TABLE["Vector env"]["observation"]


# ----------------------------------------------------------------------------------------------- SB3
@needs_compiled
def test_sb3_row():
    pytest.importorskip("stable_baselines3")
    import torch

    from newmarket_env.train import sb3_vec_env

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # sb3_vec_env warns about torch's threads on a small machine
    try:
        vec = sb3_vec_env(newmarket_env.vector_env(num_envs=4, num_players=4, opponents=["control"], num_deals=1))
    finally:
        torch.set_num_threads(threads)
    vec.reset()
    keys = set().union(*map(set, vec.reset_infos))
    masks = vec.env_method("action_masks")
    first = True
    ended = 0
    for _ in range(60):
        masks = np.stack(vec.env_method("action_masks"))
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        if first:
            actions[0] = int(np.flatnonzero(~masks[0])[0])
            first = False
        _, _, dones, infos = vec.step(actions)
        keys |= set().union(*map(set, infos))
        ended += int(dones.sum())
    assert ended > 0
    assert keys == documented_keys("SB3")
    assert {masks.dtype.name} == documented_dtypes("SB3") == {"bool"}


# --------------------------------------------------------------------------------------------- batch
@needs_compiled
def test_batch_row():
    batch = table_batch(make_rules("michigan", num_players=4), 3, seed=0)
    assert {batch.action_masks.dtype.name} == documented_dtypes("Batch") == {"int8"}
    assert f"(T, {batch.observations.shape[1]})" in TABLE["Batch"]["observation"]
    assert documented_modes("Batch") == ("raise", {"raise"}) and documented_keys("Batch") == set()
    actions = batch.random_actions()
    actions[1] = int(np.flatnonzero(batch.action_masks[1] == 0)[0])
    with pytest.raises(ValueError, match="is not legal"):
        batch.step(actions)


# --------------------------------------------------------------------------------------------- RLlib
def test_rllib_row():
    pytest.importorskip("ray.rllib")
    from newmarket_env.integrations.rllib import MASK_KEY, NewmarketMultiAgentEnv

    e = NewmarketMultiAgentEnv({"variant": "michigan", "num_players": 4, "num_deals": 1})
    obs, infos = e.reset(seed=0)
    seen_infos, dtypes, truncated = [infos], set(), False
    while True:
        ((agent, view),) = obs.items()
        assert e.observation_spaces[agent].contains(view)
        dtypes.add(view[MASK_KEY].dtype.name)
        action = int(gymnasium.spaces.Discrete(len(view[MASK_KEY])).sample(view[MASK_KEY]))
        obs, _, terminateds, truncateds, infos = e.step({agent: action})
        seen_infos.append(infos)
        truncated |= truncateds["__all__"]
        if terminateds["__all__"]:
            break
    assert all(not any(info.values()) for info in seen_infos) and documented_keys("RLlib") == set()
    assert dtypes == documented_dtypes("RLlib") == {"int8"} and not truncated
    assert documented_modes("RLlib") == ("raise", {"raise"})
    with pytest.raises(ValueError, match="illegal_action='replace' is not allowed"):
        NewmarketMultiAgentEnv({"illegal_action": "replace"})
    obs, _ = e.reset(seed=1)
    ((agent, view),) = obs.items()
    with pytest.raises(IllegalActionError):
        e.step({agent: int(np.flatnonzero(view[MASK_KEY] == 0)[0])})


# ------------------------------------------------------------------------------------------ OpenSpiel
def test_openspiel_row():
    pyspiel = pytest.importorskip("pyspiel")
    import newmarket_env.integrations.openspiel  # noqa: F401  (registers the game)

    state = pyspiel.load_game("python_newmarket", {"variant": "michigan"}).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    player = state.current_player()
    assert f"{len(state.observation_tensor(player))} floats" in TABLE["OpenSpiel"]["observation"]
    assert documented_dtypes("OpenSpiel") == set() and set(state.legal_actions_mask(player)) == {0, 1}
    assert documented_modes("OpenSpiel") == ("raise", {"raise"}) and documented_keys("OpenSpiel") == set()
    with pytest.raises(IllegalActionError):
        state.apply_action(state.legal_actions_mask(player).index(0))
