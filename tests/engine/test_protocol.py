"""The engine contract (engine/protocol.py): both engines honour it, the stub describes the compiled one,
and the env observes either engine's game through one path: the encoder the engine choice pairs with it.

The member lists come from the protocols themselves (``typing_extensions.get_protocol_members``),
so a member added to the contract is checked here without editing this file.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typing_extensions import get_protocol_members

import newmarket_env.engine.choice as choice
from newmarket_env import env as make_env
from newmarket_env.engine.choice import ENGINES, FastGame
from newmarket_env.engine.game import Game
from newmarket_env.engine.protocol import EngineGame, GameFactory, GameState
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.encode import encode_flat, static_part
from newmarket_env.observation.engines import choose_engine

needs_compiled = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")
STUB = Path(choice.__file__).with_name("_fast.pyi")
# The compiled modules with a stub (the engine's shared _table has no Python interface of its own).
COMPILED = (
    "newmarket_env.engine._fast",
    "newmarket_env.engine._batch",
    "newmarket_env.engine._policies",
    "newmarket_env.observation._encode",
    "newmarket_env.agents._baselines",
    "newmarket_env.agents._search",
)


def _stub_path(module: str) -> Path:
    """The stub of a compiled module, in the repository (agents/ installs as newmarket_env.agents)."""
    package, name = module.rsplit(".", 1)
    folders = {
        "newmarket_env.engine": STUB.parent,
        "newmarket_env.envs": STUB.parents[1] / "envs",
        "newmarket_env.observation": STUB.parents[1] / "observation",
    }
    return folders.get(package, STUB.parents[2] / "agents") / f"{name}.pyi"


ENGINE_CLASSES = [Game] + ([FastGame] if FastGame is not None else [])


def protocol_methods(protocol: type) -> dict[str, inspect.Signature]:
    members = get_protocol_members(protocol)
    return {
        name: inspect.signature(getattr(protocol, name))
        for name in members
        if inspect.isfunction(getattr(protocol, name, None))
    }


def parameter_names(signature: inspect.Signature) -> list[str]:
    return [p.name for p in signature.parameters.values() if p.name != "self"]


@pytest.mark.parametrize("klass", ENGINE_CLASSES, ids=lambda k: k.__name__)
def test_each_engine_has_every_member_of_the_contract(klass):
    game = klass(make_rules("michigan", 5), seed=3)
    missing = sorted(name for name in get_protocol_members(EngineGame) if not hasattr(game, name))
    assert missing == [], f"{klass.__name__} lacks {missing}"
    assert isinstance(game, EngineGame) and isinstance(game, GameState)
    for name, signature in protocol_methods(EngineGame).items():
        assert parameter_names(inspect.signature(getattr(klass, name))) == parameter_names(signature), name
    # the class side: made with every keyword of the protocol's __call__ (a compiled class does not show its
    # constructor's signature, so it is called), and at_position
    keywords = {
        p.name: p.default
        for p in inspect.signature(GameFactory.__call__).parameters.values()
        if p.default is not inspect.Parameter.empty
    }
    assert set(keywords) == {"seed", "deals", "present_forced", "record_events", "lots"}
    assert klass(make_rules("michigan", 5), **{**keywords, "seed": 3}).hands == game.hands
    assert parameter_names(inspect.signature(klass.at_position)) == parameter_names(
        inspect.signature(GameFactory.at_position)
    )


def test_the_contract_splits_into_state_and_the_rest():
    """What test_fast compares at every step (the state) and what only an engine game adds."""
    state = get_protocol_members(GameState)
    assert state < get_protocol_members(EngineGame)
    assert {"hands", "legal", "to_act", "balances", "rules", "pending_for"} <= state
    assert get_protocol_members(EngineGame) - state == {
        "apply",
        "copy",
        "deals",
        "events",
        "present_forced",
        "record_events",
    }


def _stub_classes(stub: Path = STUB) -> dict[str, set[str]]:
    """Every class of a stub (``_fast.pyi`` unless told) and the public names it declares (its syntax tree)."""
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    classes = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
            classes[node.name] = {n for n in names if not n.startswith("_")}
    return classes


@needs_compiled
def test_each_stub_declares_only_what_its_compiled_module_has_and_the_whole_contract():
    import importlib

    stubs = {module: _stub_path(module) for module in COMPILED}
    classes = {module: _stub_classes(path) for module, path in stubs.items()}
    assert {"FastGame"} <= set(classes["newmarket_env.engine._fast"])
    assert {"TableBatch"} <= set(classes["newmarket_env.engine._batch"])
    assert {"CompiledPolicy"} <= set(classes["newmarket_env.agents._baselines"])
    assert {"FlatObserver"} <= set(classes["newmarket_env.observation._encode"])
    assert {"CompiledSearch"} <= set(classes["newmarket_env.agents._search"])
    for module, declared_classes in classes.items():
        built = importlib.import_module(module)
        for name, declared in declared_classes.items():
            runtime = {n for n in dir(getattr(built, name)) if not n.startswith("_")}
            assert declared <= runtime, f"{stubs[module].name} declares {sorted(declared - runtime)} that {name} lacks"
    assert get_protocol_members(EngineGame) <= classes["newmarket_env.engine._fast"]["FastGame"]


@needs_compiled
@pytest.mark.slow
def test_stubtest_finds_each_stub_true_to_its_built_module(tmp_path):
    """mypy's stubtest: every name and signature each stub declares matches its built extension.

    Names a module imports for its own use (upper-case constants) are not its
    interface; names added to a module and not yet to its stub are allowed
    (--ignore-missing-stub) so a stub may lag a new method, never contradict it.
    mypy reads the package through a tree of links laid out as installed
    (agents/ as newmarket_env/agents), as scripts/typecheck.py does.
    """
    pytest.importorskip("mypy")
    root = Path(choice.__file__).parents[2]
    tree = tmp_path / "tree" / "newmarket_env"
    tree.mkdir(parents=True)
    for entry in (root / "newmarket_env").iterdir():
        if entry.name != "__pycache__":
            (tree / entry.name).symlink_to(entry)
    (tree / "agents").symlink_to(root / "agents")
    config = tmp_path / "mypy.ini"
    config.write_text(
        f"[mypy]\nfollow_imports = silent\nignore_missing_imports = True\nmypy_path = {tree.parent}\n"
        f"cache_dir = {tmp_path / 'cache'}\n"
    )
    allow = tmp_path / "allow.txt"
    module = "newmarket_env\\.(engine|agents)\\._[a-z]+"
    allow.write_text(f"{module}\\.[A-Z][A-Z_]*\n{module}\\.__test__\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            *COMPILED,
            "--mypy-config-file",
            str(config),
            "--ignore-disjoint-bases",
            "--ignore-missing-stub",
            "--allowlist",
            str(allow),
            "--ignore-unused-allowlist",
        ],
        capture_output=True,
        text=True,
        cwd=Path(choice.__file__).parents[2],
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "auto"])
def test_the_engine_choice_pairs_each_game_class_with_an_encoder_of_its_games(engine):
    if engine == "compiled" and FastGame is None:
        pytest.skip("the compiled engine is not built")
    chosen = choose_engine(engine)
    rules = make_rules("newmarket", 5, widow="dealer_buy")
    game, reference = chosen.game_class(rules, seed=6), Game(rules, seed=6)
    static = static_part(rules)
    rng = random.Random(6)
    while True:
        for seat in range(rules.num_players):
            np.testing.assert_array_equal(chosen.encode(game, seat, static), encode_flat(reference, seat, static))
        if reference.over:
            break
        action = rng.choice(reference.legal)
        game.apply(action)
        reference.apply(action)


@pytest.mark.parametrize("engine", [e for e in ENGINES if e != "auto"])
@pytest.mark.parametrize("observation", ["flat", "planes"])
def test_observe_goes_through_the_chosen_engines_encoder(engine, observation):
    """One path for both engines: every observation comes from the encoder the engine choice gave."""
    if engine == "compiled" and FastGame is None:
        pytest.skip("the compiled engine is not built")
    e = make_env(variant="michigan", engine=engine, observation=observation)
    raw = e.unwrapped
    calls = []

    def counting(game, viewer, static):
        calls.append((type(game), viewer))
        return raw_encode(game, viewer, static)

    raw_encode = raw.engine.encode
    raw.engine = dataclasses.replace(raw.engine, encode=counting)
    e.reset(seed=1)
    for seat, agent in enumerate(e.possible_agents):
        e.observe(agent)
        assert calls[-1] == (type(raw.game), seat)
    assert type(raw.game) is choose_engine(engine).game_class
    assert len(calls) == len(e.possible_agents)


def test_the_env_names_a_missing_reset_in_one_line():
    e = make_env(variant="newmarket")
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        e.unwrapped.game  # noqa: B018
