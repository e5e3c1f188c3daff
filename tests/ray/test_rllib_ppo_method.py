"""``method: rllib_ppo``: RLlib's PPO self-play from a config, its run folder, the exported agent, resume.

One module-scoped pair of tiny runs on the session's Ray cluster: an uninterrupted run of
configs/tiny_rllib_ppo.yaml, and the same run stopped early and resumed. Expected values come from
outside the code under test: RLlib's own RLModule forward pass (torch) for the exported numpy agent,
the uninterrupted run for the resumed one.
"""

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install 'newmarket-env[ray]')")
torch = pytest.importorskip("torch", reason="the RLModule is a torch module")

from ray.rllib.core.columns import Columns  # noqa: E402

from newmarket_env import raw_env  # noqa: E402
from newmarket_env.agents import load_agent  # noqa: E402
from newmarket_env.integrations.rllib import LEARNER, MASK_KEY, OBS_KEY  # noqa: E402
from newmarket_env.train.cli import main  # noqa: E402
from newmarket_env.train.config import load_config  # noqa: E402
from newmarket_env.train.curve import main as curve_main  # noqa: E402
from newmarket_env.train.rllib_ppo.learner import algorithm_config  # noqa: E402
from newmarket_env.train.rllib_ppo.method import METHOD  # noqa: E402
from newmarket_env.train.rundir import remove_outputs  # noqa: E402

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_rllib_ppo.yaml"
TOTAL = 40  # the tiny config's run.total_steps: about four iterations of 13 learner decisions
FILES = ("run.json", "config.yaml", "progress.csv", "eval.csv", "learning_curve.png", "final.npz", "final.json")


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def runs(ray_cluster, tmp_path_factory):
    """``whole``: the tiny run; ``resumed``: the same run stopped after its first checkpoint, then resumed."""
    base = tmp_path_factory.mktemp("rllib_ppo")
    whole, resumed = base / "whole", base / "resumed"
    with pytest.MonkeyPatch.context() as patch:  # a relative folder, as the configs' run.out_dir
        patch.chdir(base)
        assert main([str(TINY), "--out-dir", "whole"]) == 0
    assert main([str(TINY), "--out-dir", str(resumed), "--total-steps", "20"]) == 0
    first = rows(resumed / "progress.csv")
    assert main([str(TINY), "--out-dir", str(resumed), "--resume", "--total-steps", str(TOTAL)]) == 0
    return whole, resumed, first


@pytest.mark.slow
def test_a_run_writes_the_run_folder_files_and_stops_at_its_budget(runs):
    whole, _, _ = runs
    for name in (*FILES, "final_eval.json"):
        assert (whole / name).is_file(), name
    progress = rows(whole / "progress.csv")
    steps = [int(row["steps"]) for row in progress]
    assert steps == sorted(steps) and steps[-1] >= TOTAL > steps[-2]  # stops at the first iteration past it
    assert [int(row["iteration"]) for row in progress] == list(range(1, len(progress) + 1))
    assert all(row["illegal_actions"] == "0" and int(row["actions_checked"]) > 0 for row in progress)
    evaluated = rows(whole / "eval.csv")
    assert {row["opponent"] for row in evaluated} == {"control"} and len(evaluated) >= 2
    final = json.loads((whole / "final.json").read_text())
    assert final["training"]["method"] == "rllib_ppo" and final["training"]["steps"] == steps[-1]
    assert final["layers"] == [936, 16, 79] and final["activation"] == "tanh"
    assert (
        METHOD.find_checkpoint(whole / "checkpoints", json.loads((whole / "run.json").read_text())["run_id"]).steps
        == (steps[-1])
    )


@pytest.mark.slow
def test_every_checkpoint_holds_its_policy_and_train_curve_measures_them(runs):
    whole, _, _ = runs
    run_id = json.loads((whole / "run.json").read_text())["run_id"]
    newest = METHOD.find_checkpoint(whole / "checkpoints", run_id)
    final = np.load(whole / "final.npz", allow_pickle=False)
    inside = np.load(newest.path / "policy.npz", allow_pickle=False)  # under the folder's stamp
    assert all(np.array_equal(final[k], inside[k]) for k in final.files if k.startswith("layer"))
    assert curve_main([str(whole), "--opponents", "control", "--boards", "2", "--every", "1", "--seed", "12345"]) == 0
    measured = rows(whole / "curve.csv")
    assert [int(row["steps"]) for row in measured] == METHOD.curve_points(whole)
    final_eval = json.loads((whole / "final_eval.json").read_text())[0]
    last = measured[-1]  # the newest checkpoint's policy is the final agent: same deals, same figure
    assert float(last["mean"]) == pytest.approx(final_eval["mean"]) and int(last["boards"]) == final_eval["boards"]


def real_observations(count: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of sessions played by control (the game's own, not made up)."""
    env = raw_env(variant="newmarket", num_players=4, num_deals=1)
    player = load_agent("control", env=env, seed=0)
    obs, masks = [], []
    seed = 0
    while len(obs) < count:
        env.reset(seed=seed)
        seed += 1
        while not env.game.over:
            seen = env.observe(env.agent_selection)
            obs.append(seen["observation"])
            masks.append(seen["action_mask"])
            env.step(player.act(seen))
    return np.asarray(obs, dtype=np.float32), np.asarray(masks, dtype=np.float32)


@pytest.mark.slow
def test_the_saved_agent_computes_the_rlmodules_logits_and_greedy_actions(runs):
    whole, _, _ = runs
    config = load_config(TINY)
    algo = algorithm_config(config).build_algo()
    try:
        run_id = json.loads((whole / "run.json").read_text())["run_id"]
        algo.restore_from_path(str(METHOD.find_checkpoint(whole / "checkpoints", run_id).path))  # the final weights
        module = algo.get_module(LEARNER)
        obs, masks = real_observations()
        with torch.no_grad():

            def forward(mask):
                batch = {Columns.OBS: {OBS_KEY: torch.as_tensor(obs), MASK_KEY: torch.as_tensor(mask)}}
                return module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()

            raw = forward(np.ones_like(masks))  # every action allowed: the module's own logits
            masked = forward(masks)
    finally:
        algo.stop()
    env = raw_env(variant="newmarket", num_players=4, num_deals=1)
    agent = load_agent(str(whole / "final.npz"), env=env)
    np.testing.assert_allclose(agent.logits(obs), raw, atol=1e-4)
    greedy = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)]
    assert greedy == list(masked.argmax(axis=1))
    assert len({int(a) for a in greedy}) > 1  # the observations are varied enough to show it


@pytest.mark.slow
def test_the_saved_agent_plays_without_ray_torch_or_pickle(runs):
    whole, _, _ = runs
    script = (
        "import sys\n"
        "sys.modules['torch'] = sys.modules['ray'] = None  # importing either now fails\n"
        "import numpy as np\n"
        "from newmarket_env import raw_env\n"
        "from newmarket_env.agents import load_agent\n"
        "env = raw_env(variant='newmarket', num_players=4, num_deals=1)\n"
        f"agent = load_agent({str(whole / 'final.npz')!r}, env=env)\n"
        "env.reset(seed=1)\n"
        "while not env.game.over:\n"
        "    env.step(agent.act(env.observe(env.agent_selection)))\n"
        "print('played', agent.name)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "played tiny_rllib_ppo" in done.stdout


@pytest.mark.slow
def test_a_resumed_run_continues_from_its_checkpoint(runs):
    _, resumed, first = runs
    first_steps = [int(row["steps"]) for row in first]
    assert first_steps[-1] >= 20 > first_steps[-2]
    progress = rows(resumed / "progress.csv")
    assert progress[: len(first)] == first  # the rows before the checkpoint are kept as they were
    assert [int(row["iteration"]) for row in progress] == list(range(1, len(progress) + 1))
    steps = [int(row["steps"]) for row in progress]
    assert steps == sorted(steps) and steps[-1] >= TOTAL > steps[-2]
    run = json.loads((resumed / "run.json").read_text())
    assert [r["at_steps"] for r in run["resumed"]] == [first_steps[-1]]
    final = json.loads((resumed / "final.json").read_text())
    assert final["training"]["steps"] == steps[-1]
    assert [int(row["steps"]) for row in rows(resumed / "eval.csv")] == sorted(
        int(row["steps"]) for row in rows(resumed / "eval.csv")
    )


SAMPLED = ("iteration", "steps", "env_steps", "learner_return", "actions_checked", "opponent_frozen_at")
LEARNT = ("policy_loss", "vf_loss", "entropy", "kl")


@pytest.mark.slow
def test_the_first_resumed_iteration_samples_as_the_uninterrupted_run_did(runs):
    whole, resumed, first = runs
    # With the env runner in this process (num_env_runners: 0) each iteration is seeded from (seed, iteration)
    # and the checkpoint holds the exact weights, so the first iteration after the resume deals, seats and
    # samples as the uninterrupted run's did; its update agrees to float rounding. Later iterations are not
    # compared: float rounding in the updates (seen after a restore and between two processes of one seed)
    # can change a sampled action (docs/training/methods/rllib_ppo.md).
    compared = len(first) + 1
    before, after = rows(whole / "progress.csv")[:compared], rows(resumed / "progress.csv")[:compared]
    assert len(after) == compared
    assert [[row[k] for k in SAMPLED] for row in after] == [[row[k] for k in SAMPLED] for row in before]
    for key in LEARNT:
        np.testing.assert_allclose(
            [float(row[key]) for row in after], [float(row[key]) for row in before], rtol=1e-4, atol=1e-6
        )


@pytest.mark.parametrize(
    "setting, words",
    [
        (
            "rllib.minibatch_size=128",
            "rllib.minibatch_size = 128 is not allowed; allowed: at most rllib.batch_size = 64",
        ),
        ("rllib.activation=gelu", "rllib.activation = 'gelu' is not allowed; allowed: tanh, relu"),
        ("rllib.num_env_runners=-1", "rllib.num_env_runners = -1 is not allowed; allowed: int in 0..256"),
        ("rllib.width=3", "unknown config key 'rllib.width'; allowed keys: hidden, activation"),
        (
            "pretrain.teacher=control",
            "pretrain.teacher is for method ppo; method rllib_ppo reads its own sections (rllib)",
        ),
    ],
)
def test_bad_rllib_settings_end_in_one_line_before_anything_is_written(tmp_path, capsys, setting, words):
    out = tmp_path / "run"
    assert main([str(TINY), "--out-dir", str(out), "--set", setting]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err and err.startswith("python -m newmarket_env.train: error: ")
    assert not out.exists()


def test_describe_lists_the_rllib_keys_with_their_ranges(capsys):
    assert main(["--describe"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("rllib:  # Ray RLlib's PPO (method"))
    section = lines[start + 1 : start + 11]
    assert [line.split(":")[0].strip() for line in section] == [
        "hidden",
        "activation",
        "batch_size",
        "minibatch_size",
        "num_epochs",
        "lr",
        "refresh_every",
        "num_env_runners",
        "sampler",
        "num_envs",
    ]
    assert all("(allowed: " in line for line in section)
    assert "(allowed: int in 0..256)" in section[-3] and "(allowed: batch, aec)" in section[-2]


def test_overwrite_removes_rllib_checkpoint_folders_and_leaves_other_files(tmp_path):
    checkpoints = tmp_path / "checkpoints"
    (checkpoints / "rllib_13_steps" / "learner_group").mkdir(parents=True)
    (checkpoints / "rllib_13_steps" / "learner_group" / "state.pkl").write_bytes(b"x")
    (checkpoints / "rllib_13_steps.json").write_text("{}")
    (checkpoints / ".rllib_27_steps.abc").mkdir()  # left by a run killed while saving
    (checkpoints / "notes.txt").write_text("mine")
    remove_outputs(tmp_path, ["checkpoints"])
    assert sorted(p.name for p in checkpoints.iterdir()) == ["notes.txt"]
