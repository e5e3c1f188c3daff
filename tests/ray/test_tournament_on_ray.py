"""Tournaments on a real local Ray cluster give the local runner's results, even when a node dies mid-run.

The expected figures come from the local runner (a different code path: one process, schedule order);
the Ray runs must match them exactly, timings and how-it-ran settings aside.
"""

import subprocess
import sys

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'newmarket-env[ray]')")

from newmarket_env.eval.tournament import TournamentConfig, run_tournament  # noqa: E402
from newmarket_env.eval.tournament.report import results_dict, write_games_csv  # noqa: E402

#: Fields of results.json that say how a run was played, not what happened in it.
HOW_IT_RAN = ("workers", "backend", "address")
CHEAP = ("greedy", "control", "lowest", "random", "random")  # 5 line-ups x 4 rotations a block


def comparable(result) -> dict:
    data = results_dict(result)
    del data["speed"]
    for key in HOW_IT_RAN:
        del data["config"][key]
    return data


def games_csv(result, folder) -> str:
    path = folder / "games.csv"
    write_games_csv(result, str(path))
    return path.read_text()


def test_ray_tournament_matches_the_local_runner_and_streams_every_session(ray_cluster, tmp_path):
    config = TournamentConfig(agents=CHEAP, blocks=6, seed=11, resamples=100)
    local = run_tournament(config)
    seen = []
    on_ray = run_tournament(
        TournamentConfig(agents=CHEAP, blocks=6, seed=11, resamples=100, backend="ray"), progress=seen.append
    )
    assert len(seen) == len(on_ray.games) == 6 * 5 * 4  # the progress callback saw every session
    assert comparable(on_ray) == comparable(local)
    assert games_csv(on_ray, tmp_path) == games_csv(local, tmp_path)
    assert ray.is_initialized()  # a connection made by the caller is left open


def test_with_the_ray_backend_the_driver_plays_no_session(ray_cluster, monkeypatch):
    """Ray's workers import the player afresh: a player broken in this process only (the driver) must
    not be reached, so a run that silently fell back to the local runner fails here."""
    from newmarket_env.eval.tournament.play import TablePlayer

    def not_here(self, spec):
        raise AssertionError("the driver played a session: the run did not go to Ray")

    monkeypatch.setattr(TablePlayer, "play", not_here)
    result = run_tournament(TournamentConfig(agents=CHEAP[:4], blocks=2, seed=3, resamples=50, backend="ray"))
    assert len(result.games) == 2 * 4
    with pytest.raises(AssertionError, match="the driver played a session"):
        run_tournament(TournamentConfig(agents=CHEAP[:4], blocks=1, seed=3, resamples=50))


@pytest.mark.slow
def test_a_node_removed_mid_run_is_retried_and_changes_no_result(ray_cluster):
    # Slow blocks (the pure-Python search agent) keep every node busy while blocks are queued; the node
    # is removed at the first finished block that finds it running one, so Ray must re-run that block.
    agents, options = ("search", "greedy", "control", "random"), {"search": {"budget": 2, "engine": "python"}}
    config = TournamentConfig(agents=agents, agent_options=options, blocks=10, seed=5, resamples=100)
    local = run_tournament(config)
    doomed = ray_cluster.add_node(num_cpus=1, object_store_memory=80 * 1024 * 1024)
    ray_cluster.wait_for_nodes()
    removed = []

    def remove_after_first_block(result):
        if not removed:
            busy = ray._private.state.available_resources_per_node().get(doomed.node_id, {}).get("CPU", 0.0) == 0
            if busy:  # else wait for a later block: the node was between two blocks
                ray_cluster.remove_node(doomed, allow_graceful=False)
                removed.append(busy)

    on_ray = run_tournament(
        TournamentConfig(agents=agents, agent_options=options, blocks=10, seed=5, resamples=100, backend="ray"),
        progress=remove_after_first_block,
    )
    assert removed == [True], "the removed node was not running a block, so nothing had to be retried"
    ray_cluster.wait_for_nodes()  # raises unless the removed node is dead and the other two alive
    assert comparable(on_ray) == comparable(local)


@pytest.mark.slow
def test_cli_joins_a_running_cluster_by_address_and_writes_the_local_files(ray_cluster, tmp_path):
    common = ["--agents", "greedy,random,random,lowest", "--blocks", "3", "--seed", "2", "--resamples", "50", "--quiet"]
    command = [sys.executable, "-m", "newmarket_env.eval.tournament", *common]
    subprocess.run([*command, "--workers", "1", "--out", str(tmp_path / "local")], check=True, timeout=300)
    joined = subprocess.run(
        [*command, "--backend", "ray", "--address", ray_cluster.address, "--out", str(tmp_path / "ray")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert joined.returncode == 0, joined.stderr
    assert (tmp_path / "ray" / "games.csv").read_text() == (tmp_path / "local" / "games.csv").read_text()
    assert ray.cluster_resources().get("CPU") == 2  # the cluster the CLI joined is still up


@pytest.mark.slow
def test_cli_without_an_address_starts_a_private_ray_and_stops_it(tmp_path):
    common = [
        "--agents",
        "control,random,random,lowest",
        "--blocks",
        "2",
        "--seed",
        "8",
        "--resamples",
        "50",
        "--quiet",
        "--workers",
        "1",
    ]
    command = [sys.executable, "-m", "newmarket_env.eval.tournament", *common]
    subprocess.run([*command, "--out", str(tmp_path / "local")], check=True, timeout=300)
    private = subprocess.run(
        [*command, "--backend", "ray", "--out", str(tmp_path / "ray")], capture_output=True, text=True, timeout=300
    )
    assert private.returncode == 0, private.stderr
    assert (tmp_path / "ray" / "games.csv").read_text() == (tmp_path / "local" / "games.csv").read_text()
