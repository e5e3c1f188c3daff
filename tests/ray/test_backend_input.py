"""Bad backend settings are one-line errors before anything starts (no Ray needed to check them)."""

import pytest

from newmarket_env.eval.tournament import TournamentConfig, plan_tournament
from newmarket_env.eval.tournament.cli import main
from newmarket_env.execution import backends as execution_backends

AGENTS = ("random",) * 4


@pytest.mark.parametrize(
    "backend, address, words",
    [
        ("cluster", None, "backend='cluster' is unknown; allowed: local, ray"),
        ("local", "auto", "address='auto' needs backend='ray'"),
        ("ray", "", "address='' is not allowed; allowed: None (start a local Ray), 'auto'"),
        ("ray", "10.0.0.1: 6379", "is not allowed"),
        ("ray", 6379, "address=6379 is not allowed"),
    ],
)
def test_bad_backend_settings_are_refused_in_one_line(backend, address, words):
    with pytest.raises(ValueError) as err:
        plan_tournament(TournamentConfig(agents=AGENTS, blocks=1, backend=backend, address=address))
    assert words in str(err.value) and "\n" not in str(err.value)


def test_ray_backend_without_ray_installed_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(execution_backends, "ray_available", lambda: False)
    with pytest.raises(
        ValueError,
        match=r"needs Ray, which is not installed; install it with pip install "
        r"'newmarket-env\[ray\]'",
    ):
        plan_tournament(TournamentConfig(agents=AGENTS, blocks=1, backend="ray"))


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--backend", "spark"], "invalid choice: 'spark'"),
        (["--address", "auto"], "address='auto' needs backend='ray'"),
        (["--backend", "ray", "--address", ""], "address='' is not allowed"),
    ],
)
def test_cli_refuses_bad_backend_options_with_exit_code_2(argv, words, capsys, tmp_path):
    code = main(["--agents", ",".join(AGENTS), "--blocks", "1", "--out", str(tmp_path / "out"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()  # nothing written
