"""stable-baselines3 models (MaskablePPO, PPO ``.zip``) as agents and ``newmarket export``: real models saved
by SB3, read back without unpickling, played against SB3's own forward pass, refused when they cannot play."""

from __future__ import annotations

import io
import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch")
sb3 = pytest.importorskip("stable_baselines3")
sb3_contrib = pytest.importorskip("sb3_contrib")

from newmarket_env import env, load_agent  # noqa: E402
from newmarket_env.agents.sb3_zip import read_sb3_zip  # noqa: E402
from newmarket_env.envs.single_agent import SingleAgentEnv  # noqa: E402
from newmarket_env.game.actions import NUM_ACTIONS  # noqa: E402
from newmarket_env.observation.layout import FLAT_SIZE  # noqa: E402

NEWMARKET = Path(sys.executable).parent / "newmarket"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A MaskablePPO with ReLU and two layers of 16, and a PPO with SB3's defaults (Tanh, 64 x 64),
    each trained for one short rollout so its weights are not the initial ones, saved by model.save()."""
    folder = tmp_path_factory.mktemp("models")
    game = SingleAgentEnv(variant="newmarket", num_players=4, opponents=["random"])
    maskable = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        game,
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [16, 16], "activation_fn": torch.nn.ReLU},
    )
    maskable.learn(64)
    maskable.save(folder / "maskable.zip")
    plain = sb3.PPO("MlpPolicy", game, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    plain.learn(64)
    plain.save(folder / "plain.zip")
    return {"maskable": (folder / "maskable.zip", maskable), "plain": (folder / "plain.zip", plain)}


def _observations(count: int = 12):
    e = env(variant="newmarket", num_players=4)
    e.reset(seed=5)
    out = []
    for _agent in e.agent_iter():
        observation, _, done, truncated, _ = e.last()
        if done or truncated or len(out) == count:
            break
        out.append(observation)
        e.step(int(np.flatnonzero(observation["action_mask"])[0]))
    return out


def _sb3_logits(model, flat: np.ndarray) -> np.ndarray:
    policy = model.policy
    with torch.no_grad():
        features = policy.extract_features(torch.as_tensor(flat[None]), policy.pi_features_extractor)
        return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()[0]


@pytest.mark.parametrize("kind,activation,sizes", [("maskable", "relu", [16, 16]), ("plain", "tanh", [64, 64])])
def test_a_zip_plays_as_sb3_plays_it(models, kind, activation, sizes):
    path, model = models[kind]
    agent = load_agent(str(path), env=env(variant="newmarket", num_players=4), seed=0)
    assert agent.metadata["activation"] == activation  # read from the model: ReLU is not SB3's default
    assert [w.shape[0] for w, _ in agent.layers] == [*sizes, NUM_ACTIONS]
    for observation in _observations():
        flat = observation["observation"].astype(np.float32)
        np.testing.assert_allclose(agent.logits(flat), _sb3_logits(model, flat), rtol=1e-5, atol=1e-5)
        if kind == "maskable":
            expected, _ = model.predict(flat, action_masks=observation["action_mask"].astype(bool), deterministic=True)
            assert agent.act(observation) == int(expected)


def test_what_the_zip_says_it_is(models):
    info, _ = read_sb3_zip(models["maskable"][0])
    assert info["algorithm"] == "MaskablePPO" and info["num_timesteps"] == 64
    assert info["sb3_version"] == sb3.__version__
    assert read_sb3_zip(models["plain"][0])[0]["algorithm"] == "PPO"


class _OtherActions(gym.Env):
    observation_space = gym.spaces.Box(-1, 1, (FLAT_SIZE,), np.float32)
    action_space = gym.spaces.Discrete(5)

    def reset(self, *, seed=None, options=None):
        return np.zeros(FLAT_SIZE, np.float32), {}

    def step(self, action):
        return np.zeros(FLAT_SIZE, np.float32), 0.0, True, False, {}


@pytest.mark.parametrize(
    "make,reason",
    [
        (
            lambda: sb3.PPO("MlpPolicy", "CartPole-v1"),
            "its observation space is <class 'gymnasium.spaces.box.Box'> "
            f"of shape [4]; this package's observation is a Box of shape ({FLAT_SIZE},)",
        ),
        (
            lambda: sb3.PPO("MlpPolicy", _OtherActions()),
            "its action space is <class 'gymnasium.spaces.discrete."
            f"Discrete'> of n=5; this package's actions are Discrete({NUM_ACTIONS})",
        ),
        (
            lambda: sb3.DQN("MlpPolicy", _OtherActions()),
            "its policy is 'DQNPolicy' of 'stable_baselines3.dqn."
            "policies'; allowed: MaskableActorCriticPolicy (MaskablePPO), ActorCriticPolicy (PPO), "
            "SparseInputPolicy (MaskablePPO) (MlpPolicy)",
        ),
    ],
)
def test_a_model_for_other_spaces_is_refused_with_the_reason(tmp_path, make, reason):
    path = tmp_path / "other.zip"
    make().save(path)
    with pytest.raises(ValueError) as err:
        load_agent(str(path), env=env(variant="newmarket"))
    message = str(err.value)
    assert message.startswith(f"{str(path)!r} is not a stable-baselines3 model this package can play: ")
    assert reason in message and "\n" not in message


def test_an_unknown_activation_is_refused(tmp_path):
    game = SingleAgentEnv(variant="newmarket", num_players=4, opponents=["random"])
    path = tmp_path / "elu.zip"
    sb3.PPO("MlpPolicy", game, policy_kwargs={"activation_fn": torch.nn.ELU}).save(path)
    with pytest.raises(ValueError, match=r"its activation_fn <class 'torch.nn.modules.activation.ELU'> is unknown"):
        load_agent(str(path), env=env(variant="newmarket"))


class _Marker:
    """Unpickling this writes a file: the proof that a loader ran code from the model."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (Path(self.path).write_text, ("ran",))


def _rewrite(source: Path, target: Path, **replaced: bytes) -> None:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            new.writestr(name, replaced.get(name.replace(".", "_"), old.read(name)))


def test_loading_a_zip_runs_no_pickled_code(models, tmp_path):
    """A model whose pickled values would run code when unpickled: SB3's own load() runs it, load_agent not."""
    source = models["maskable"][0]
    marker = tmp_path / "ran.txt"
    data = json.loads(zipfile.ZipFile(source).read("data"))
    payload = __import__("base64").b64encode(pickle.dumps(_Marker(str(marker)))).decode()
    data["policy_class"][":serialized:"] = payload
    data["observation_space"][":serialized:"] = payload
    poisoned = tmp_path / "poisoned.zip"
    _rewrite(source, poisoned, data=json.dumps(data).encode())
    agent = load_agent(str(poisoned), env=env(variant="newmarket"))
    assert agent.act(_observations(1)[0]) >= 0 and not marker.exists()
    with pytest.raises(Exception):  # noqa: B017 - what SB3 raises after running the code does not matter
        sb3_contrib.MaskablePPO.load(poisoned)
    assert marker.read_text() == "ran"  # the file would have run code through SB3's loader


def test_a_policy_file_holding_code_is_refused_unrun(models, tmp_path):
    marker = tmp_path / "ran.txt"
    buffer = io.BytesIO()
    torch.save({"action_net.weight": _Marker(str(marker))}, buffer)
    poisoned = tmp_path / "poisoned.zip"
    _rewrite(models["maskable"][0], poisoned, policy_pth=buffer.getvalue())
    with pytest.raises(ValueError, match=r"its 'policy.pth' is not plain tensors \(torch's weights-only loader"):
        load_agent(str(poisoned), env=env(variant="newmarket"))
    assert not marker.exists()


def test_without_torch_the_extra_is_named_in_one_line(models):
    path = models["plain"][0]
    probe = (
        "import sys\nsys.modules['torch'] = None\n"
        "from newmarket_env import env, load_agent\n"
        "try:\n"
        f"    load_agent({str(path)!r}, env=env(variant='newmarket'))\n"
        "except ModuleNotFoundError as err:\n"
        "    print(err)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.stdout == (
        f"reading the stable-baselines3 model {str(path)!r} needs torch: pip install 'newmarket-env[train]'\n"
    ), done.stderr


def test_export_writes_the_safe_file_with_the_models_activation(models, tmp_path):
    path, model = models["maskable"]
    out = tmp_path / "exported.npz"
    command = [str(NEWMARKET), "export", str(path), str(out), "--variant", "michigan", "--players", "5"]
    done = subprocess.run([*command, "--name", "mine"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out}: MaskablePPO policy {FLAT_SIZE} -> 16 -> 16 -> 79, activation relu, michigan\n"
    e = env(variant="michigan", num_players=5)
    agent = load_agent(str(out), env=e)
    assert agent.name == "mine" and agent.metadata["activation"] == "relu" and agent.metadata["variant"] == "michigan"
    assert agent.metadata["training"]["algorithm"] == "MaskablePPO"
    with pytest.raises(ValueError, match="was trained for 'michigan' with other rules"):
        load_agent(str(out), env=env(variant="newmarket"))
    for observation in _observations():
        flat = observation["observation"].astype(np.float32)
        np.testing.assert_allclose(agent.logits(flat), _sb3_logits(model, flat), rtol=1e-5, atol=1e-5)
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and again.stderr == (
        f"newmarket export: error: OUT {str(out)!r} exists; pass --overwrite to replace it\n"
    )


@pytest.mark.parametrize(
    "arguments,message",
    [
        (["MODEL", "x.txt"], "OUT 'x.txt' must end with .npz (the saved-agent format)"),
        (["nothing.zip", "x.npz"], "MODEL 'nothing.zip' is not a file"),
        (["MODEL", "x.npz", "--set", "widow=sometimes"], "widow"),
    ],
)
def test_export_refuses_bad_input_in_one_line(models, tmp_path, arguments, message):
    arguments = [str(models["plain"][0]) if a == "MODEL" else a for a in arguments]
    done = subprocess.run(
        [str(NEWMARKET), "export", *arguments, "--variant", "newmarket"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr
    assert not (tmp_path / "x.npz").exists()


def test_a_zip_enters_a_tournament_from_the_command_line(models, tmp_path):
    path = models["maskable"][0]
    command = [str(NEWMARKET), "tournament", "--agents", f"{path},random,random,random", "--blocks", "1"]
    command += ["--workers", "1", "--resamples", "100", "--set", "num_deals=1", "--out", str(tmp_path / "out")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["agents"][0]["label"] == "maskable" and len(results["games"]) == 4


@pytest.mark.parametrize("name", ["maskable", "plain"])
def test_a_zip_agent_refuses_an_observation_of_another_size(models, name):
    agent = load_agent(str(models[name][0]), env=env(variant="newmarket"), seed=0)
    observation = _observations(1)[0]
    for size in (10, 900, FLAT_SIZE + 1):
        with pytest.raises(ValueError, match=rf"^observation of shape \({size},\) is neither flat \({FLAT_SIZE},\)"):
            agent.act({"observation": np.zeros(size, np.float32), "action_mask": observation["action_mask"]})


def _bomb(source: Path, target: Path, inflated: int) -> None:
    """``source`` with its ``policy.pth`` replaced by ``inflated`` zero bytes, deflated (a few kB per MiB)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for name in old.namelist():
            if name != "policy.pth":
                new.writestr(name, old.read(name))
        with new.open("policy.pth", "w", force_zip64=True) as out:
            chunk = bytes(1 << 20)
            for _ in range(inflated >> 20):
                out.write(chunk)


def test_a_policy_larger_than_its_declared_network_can_need_is_refused_unread(models, tmp_path, monkeypatch):
    bomb = tmp_path / "bomb.zip"
    _bomb(models["maskable"][0], bomb, 64 << 20)
    assert bomb.stat().st_size < 1 << 20
    # net_arch [16, 16]: the actor 937*16 + 17*16 + 17*79 numbers, the critic 937*16 + 17*16 + 17*1: 31888 in
    # all (SB3's own count of the model's parameters), at 8 bytes, and 64 KiB + 1 KiB for each of 12 tensors.
    expected = (
        f"{str(bomb)!r} is not a stable-baselines3 model this package can play: its 'policy.pth' is {64 << 20} "
        "bytes, more than the 332928 its declared network (net_arch {'pi': [16, 16], 'vf': [16, 16]}) can need"
    )
    opened = []
    real_open = zipfile.ZipFile.open
    monkeypatch.setattr(
        zipfile.ZipFile, "open", lambda self, name, *a, **k: opened.append(str(name)) or real_open(self, name, *a, **k)
    )
    with pytest.raises(ValueError) as refused:
        load_agent(str(bomb), env=env(variant="newmarket"))
    assert str(refused.value) == expected
    assert "policy.pth" not in opened  # refused from the archive's directory, before a byte was inflated
    monkeypatch.undo()
    done = subprocess.run(
        [str(NEWMARKET), "export", str(bomb), str(tmp_path / "x.npz"), "--variant", "newmarket"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and done.stderr == f"newmarket export: error: {expected}\n"


def test_a_data_nested_without_end_is_one_line(models, tmp_path):
    deep = tmp_path / "deep.zip"
    _rewrite(models["maskable"][0], deep, data=b"[" * 200_000 + b"]" * 200_000)
    expected = (
        f"{str(deep)!r} is not a stable-baselines3 model this package can play: its 'data' nests too deep to be "
        "a model's description"
    )
    with pytest.raises(ValueError) as refused:
        load_agent(str(deep), env=env(variant="newmarket"))
    assert str(refused.value) == expected
    done = subprocess.run(
        [str(NEWMARKET), "export", str(deep), str(tmp_path / "x.npz"), "--variant", "newmarket"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and done.stderr == f"newmarket export: error: {expected}\n"


@pytest.mark.parametrize("net_arch", [[16, "x"], {"pi": [16]}, [{"pi": [16], "vf": [16]}], [0]])
def test_a_net_arch_that_is_not_layer_sizes_is_refused(models, tmp_path, net_arch):
    odd = tmp_path / "odd.zip"
    data = json.loads(zipfile.ZipFile(models["maskable"][0]).read("data"))
    data["policy_kwargs"]["net_arch"] = net_arch
    _rewrite(models["maskable"][0], odd, data=json.dumps(data).encode())
    with pytest.raises(ValueError, match=r"its policy_kwargs' net_arch .* is not a list of layer sizes nor"):
        load_agent(str(odd), env=env(variant="newmarket"))


# ---------------------------------------------------------------- the rules a model learned, recorded beside it
def _export(*arguments: str, cwd=None):
    return subprocess.run([str(NEWMARKET), "export", *arguments], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_a_model_saved_by_this_package_records_its_rules_and_export_checks_them(models, tmp_path):
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train import save_model

    _, model = models["maskable"]  # trained on SingleAgentEnv(variant="newmarket", num_players=4)
    path = tmp_path / "mine.zip"
    record = save_model(model, path)
    assert record == tmp_path / "mine.rules.json"
    assert record.stat().st_mode & 0o777 == path.stat().st_mode & 0o777  # shared alike (not mkstemp's 0600)
    saved = json.loads(record.read_text())
    assert saved["variant"] == "newmarket" and saved["rules"] == make_rules("newmarket", 4).to_dict()
    # No --variant: the recorded rules, without a warning.
    done = _export(str(path), str(tmp_path / "same.npz"))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.endswith(", newmarket\n")
    assert (
        load_agent(str(tmp_path / "same.npz"), env=env(variant="newmarket", num_players=4)).metadata["variant"]
        == "newmarket"
    )
    # The same rules named again: accepted. Other rules: refused in one line, nothing written.
    assert _export(str(path), str(tmp_path / "named.npz"), "--variant", "newmarket", "--players", "4").returncode == 0
    for other in (["--variant", "michigan"], ["--set", "num_deals=1"], ["--variant", "newmarket", "--players", "5"]):
        done = _export(str(path), str(tmp_path / "other.npz"), *other)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "was trained for 'newmarket' with other rules (its mine.rules.json says so)" in done.stderr
        assert "differing parameters" in done.stderr and not (tmp_path / "other.npz").exists()
    # The .zip itself plays only those rules, as a saved .npz does.
    with pytest.raises(ValueError, match=r"model .*mine.zip' was trained for 'newmarket' with other rules"):
        load_agent(str(path), env=env(variant="michigan"))
    assert load_agent(str(path), env=env(variant="newmarket", num_players=4)).metadata["variant"] == "newmarket"
    assert load_agent(str(path), env=env(variant="michigan"), allow_rules_mismatch=True) is not None


def test_a_record_left_beside_another_model_is_not_believed(models, tmp_path):
    from newmarket_env.train import save_model

    path = tmp_path / "mine.zip"
    save_model(models["maskable"][1], path)
    path.write_bytes(models["plain"][0].read_bytes())  # the zip replaced, its record kept
    done = _export(str(path), str(tmp_path / "x.npz"))
    assert done.returncode == 2 and "was written for another file (the zip changed since)" in done.stderr
    with pytest.raises(ValueError, match="was written for another file"):
        load_agent(str(path), env=env(variant="newmarket"))


def test_export_of_a_model_without_a_record_needs_the_rules_and_warns(models, tmp_path):
    path = models["plain"][0]  # saved by model.save(): SB3 writes no rules
    done = _export(str(path), str(tmp_path / "x.npz"))
    assert done.returncode == 2 and "has no rules record (plain.rules.json): give the rules" in done.stderr
    done = _export(str(path), str(tmp_path / "x.npz"), "--variant", "michigan")
    assert done.returncode == 0
    assert done.stderr.startswith("newmarket export: warning: ") and "has no rules record" in done.stderr
    assert "will say it plays michigan" in done.stderr


def test_save_model_needs_rules_where_the_model_has_no_env_of_ours(tmp_path):
    model = sb3_contrib.MaskablePPO("MlpPolicy", SingleAgentEnv(variant="newbury"), n_steps=64, batch_size=32)
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train import save_model

    path = save_model(model, tmp_path / "m.zip")  # its env is ours: the rules come from it
    assert json.loads(path.read_text())["variant"] == "newbury"
    model.env = None
    with pytest.raises(ValueError, match="has no newmarket_env env to read its rules from"):
        save_model(model, tmp_path / "n.zip")
    save_model(model, tmp_path / "n.zip", rules=make_rules("michigan"), variant="michigan")
    assert json.loads((tmp_path / "n.rules.json").read_text())["variant"] == "michigan"
