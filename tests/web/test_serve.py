"""``newmarket serve`` as a process, and what happens without the web extra or Pillow."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install 'newmarket-env[web]')")

HANG_GUARD_S = 60  # only so a broken server fails instead of hanging; never an assertion on speed


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_serve_listens_on_this_machine_and_serves_the_page():
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "newmarket_env.cli", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline, page = time.monotonic() + HANG_GUARD_S, None
        while page is None:
            assert server.poll() is None and time.monotonic() < deadline, server.stdout.read()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    page = answer.read().decode()
            except OSError:
                time.sleep(0.2)
        assert "<title>newmarket-env</title>" in page
        # The default address is the loopback one: on this machine's other address nothing answers.
        other = _non_loopback_address()
        if other is not None:
            with pytest.raises(OSError):
                socket.create_connection((other, port), timeout=5).close()
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD_S)


def _non_loopback_address() -> str | None:
    """An address of this machine other than 127.x (a UDP "connect" sends nothing), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 1))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address


BLOCK = "import sys; sys.modules[{name!r}] = None; "


@pytest.mark.parametrize("name", ["fastapi", "uvicorn"])
def test_serve_without_the_web_extra_says_what_to_install(name):
    code = BLOCK.format(name=name) + "from newmarket_env.cli import main; sys.exit(main(['serve']))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"newmarket serve: error: needs the Python module {name!r}: pip install 'newmarket-env[web]'"
    ]


def test_create_app_without_fastapi_names_the_extra():
    code = BLOCK.format(name="fastapi") + "from newmarket_env.web import create_app; create_app()"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "ModuleNotFoundError: the web app needs 'fastapi': pip install \"newmarket-env[web]\""
    )


def test_pictures_without_pillow_name_the_extra():
    code = (
        BLOCK.format(name="PIL") + "from newmarket_env import raw_env; e = raw_env(render_mode='rgb_array'); "
        "e.reset(seed=1); e.render()"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        'ModuleNotFoundError: pictures of the table need Pillow: pip install "newmarket-env[render]"'
    )


def test_the_env_does_not_import_the_web_app_or_pillow():
    code = (
        "import sys, newmarket_env, newmarket_env.envs.single_agent, newmarket_env.observation, "
        "newmarket_env.engine; e = newmarket_env.env(render_mode='rgb_array'); e.reset(seed=0); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastapi', 'uvicorn', 'PIL', 'starlette') "
        "or m.startswith('newmarket_env.web')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "item, message",
    [
        ("mine", "is not NAME=PATH_OR_MODULE:ATTR"),
        ("mine=", "is not NAME=PATH_OR_MODULE:ATTR"),
        ("my agent=newmarket_env.agents.random_agent:RandomAgent", "name 'my agent' is not allowed"),
        ("a,b=newmarket_env.agents.random_agent:RandomAgent", "name 'a,b' is not allowed"),
        ("greedy=newmarket_env.agents.random_agent:RandomAgent", "name 'greedy' is a registered agent's"),
        ("mine=no/such/file.npz", "is not an existing .npz or .zip file nor a MODULE:ATTR reference"),
        ("mine=README.md", "is not a valid newmarket_env saved agent"),
        ("mine=no_such_module_here:Agent", "module 'no_such_module_here' cannot be imported"),
        ("mine=os:path", "is a module, not an Agent subclass"),
    ],
)
def test_a_bad_agent_is_one_line_and_nothing_listens(item, message, capsys):
    from newmarket_env.web.cli import main

    port = _free_port()
    assert main(["--port", str(port), "--agent", item]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_an_agent_given_twice_is_refused(capsys):
    from newmarket_env.web.cli import main

    spec = "newmarket_env.agents.random_agent:RandomAgent"
    assert main(["--port", str(_free_port()), "--agent", f"mine={spec}", "--agent", f"mine={spec}"]) == 2
    assert "name 'mine' is given twice" in capsys.readouterr().err
