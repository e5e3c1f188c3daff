"""No agent reads the privileged state (observation/state.py): agents decide from their observations only.

Every agent ``load_agent`` knows plays a session with every way to the state set to fail and to tell
(the envs' ``state``/``state_for``/``states``, the Python and compiled encoders, the batch's state
observer); and no module of the agents package names the state's modules or calls.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import newmarket_env.observation as observation_package
from newmarket_env import available_agents, env, load_agent
from newmarket_env.engine import observers
from newmarket_env.envs.aec import raw_env
from newmarket_env.envs.single_agent import SingleAgentEnv
from newmarket_env.envs.vector import VectorEnv
from newmarket_env.observation import engines, state

AGENTS_SOURCE = Path(__file__).resolve().parents[2] / "agents"
VARIANT_IN_NAME = re.compile(r"(newmarket|michigan|newbury)")
NEEDS_OPTIONS = {"guided_search"}  # needs network=: the shipped exit-*-search agents are this agent with theirs
FEW_WORLDS = {"budget": 2}


@pytest.fixture
def state_reads(monkeypatch):
    """Every way to the privileged state, replaced by one that records the read and fails."""
    reads: list[str] = []

    def trap(name):
        def read(*args, **kwargs):
            reads.append(name)
            raise AssertionError(f"the privileged state was read through {name}")

        return read

    for owner, name in [
        (raw_env, "state"),
        (raw_env, "state_for"),
        (SingleAgentEnv, "state"),
        (VectorEnv, "states"),
        (state, "encode_state"),
        (observation_package, "encode_state"),
        (engines, "encode_state"),
        (engines, "encode_state_compiled"),
    ]:
        monkeypatch.setattr(owner, name, trap(f"{getattr(owner, '__name__', owner)}.{name}"))
    try:
        from newmarket_env.observation import _state
    except ImportError:  # not built: nothing compiled to trap
        pass
    else:
        monkeypatch.setattr(_state, "encode_state_game", trap("_state.encode_state_game"))
    monkeypatch.setitem(observers._factories, "state", trap("a batch's states()"))
    return reads


def _variant(name: str) -> str:
    match = VARIANT_IN_NAME.search(name)
    return match.group(1) if match else "michigan"


@pytest.mark.parametrize("name", sorted(set(available_agents()) - NEEDS_OPTIONS))
def test_every_agent_plays_without_reading_the_state(name, state_reads):
    variant = _variant(name)
    e = env(variant=variant, num_players=4)  # the shipped networks play only the rules they were trained for
    options = FEW_WORLDS if name.endswith("search") else {}
    agents = [load_agent(name, env=e, seed=seat, **options) for seat in range(4)]
    e.reset(seed=7)
    for agent in agents:
        agent.reset()
    decisions = 0
    for agent_name in e.agent_iter():
        observation, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(int(agents[int(agent_name.rsplit("_", 1)[1])].act(observation)))
        decisions += 1
    assert decisions > 4 and state_reads == []


def test_the_trap_catches_a_read(state_reads):
    """The fixture itself: a read of the state through the env fails and is recorded."""
    e = env(variant="michigan")
    e.reset(seed=0)
    with pytest.raises(AssertionError, match="privileged state"):
        e.unwrapped.state()
    assert state_reads == ["raw_env.state"]


def _names_in(path: Path) -> set[str]:
    """Every module imported and every attribute read in a Python or Cython source (Cython's own syntax
    aside: its imports are read by line)."""
    text = path.read_text()
    if path.suffix == ".py":
        tree = ast.parse(text)
        names = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        names |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        names |= {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom | ast.Import)
            for alias in node.names
        }
        return names
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", text))


def test_no_agent_module_names_the_state():
    forbidden = {
        "newmarket_env.observation.state",
        "newmarket_env.observation.state_layout",
        "newmarket_env.observation._state",
        "state_for",
        "encode_state",
        "encode_state_game",
        "encode_state_compiled",
        "state_static_part",
        "StateObserver",
    }
    sources = sorted(p for p in AGENTS_SOURCE.rglob("*") if p.suffix in (".py", ".pyx", ".pxd"))
    assert len(sources) > 10
    found = {str(p.relative_to(AGENTS_SOURCE)): sorted(_names_in(p) & forbidden) for p in sources}
    assert {k: v for k, v in found.items() if v} == {}
