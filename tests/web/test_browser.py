"""The web app in a real headless browser: Debian's chromium driven by Playwright.

Play a whole session by clicking, watch one to its end, replay a saved record
forward and back, and check the screenshots are pictures of a table (not
blank). With ``NEWMARKET_SCREENSHOTS=DIR`` the screenshots of the three views
are also saved in DIR (the README's pictures: ``docs/web_*.png``).
"""

from __future__ import annotations

import json
import os
import random
import socket
import threading
import time

import numpy as np
import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT_MS = 30_000  # only so a broken page fails instead of hanging; never an assertion on speed

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install 'newmarket-env[web]')")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install 'newmarket-env[web]')")
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (dev extra)")
if not os.path.exists(CHROMIUM):
    pytest.skip(
        f"Debian's chromium is not installed at {CHROMIUM} (apt-get install -y chromium; .ci/run installs it)",
        allow_module_level=True,
    )

from newmarket_env import env  # noqa: E402
from newmarket_env.engine.record import replay_steps  # noqa: E402
from newmarket_env.web import create_app  # noqa: E402


@pytest.fixture(scope="module")
def server():
    """The app on a free local port, in a thread of this process."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    instance = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not instance.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(server)
    page.wait_for_selector("body[data-ready=yes]")
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def _not_blank(page, name: str) -> None:
    """The screenshot is a picture: many colours, the felt green and the white of card faces."""
    from io import BytesIO

    from PIL import Image

    png = page.screenshot(full_page=True)
    pixels = np.asarray(Image.open(BytesIO(png)).convert("RGB"))
    colours = len(np.unique(pixels.reshape(-1, 3).astype(np.int32) @ np.array([65536, 256, 1], dtype=np.int32)))
    assert colours > 100 and pixels.std() > 20, (colours, pixels.std())
    felt = np.all(np.abs(pixels.astype(int) - (31, 107, 58)) < 40, axis=-1).mean()
    assert felt > 0.05, felt
    folder = os.environ.get("NEWMARKET_SCREENSHOTS")
    if folder:
        with open(os.path.join(folder, f"web_{name}.png"), "wb") as fh:
            fh.write(png)


def test_play_a_whole_session_by_clicking(page):
    page.fill("#setup-play input[name=agents]", "greedy")
    page.fill("#setup-play input[name=seed]", "12")
    page.fill("#setup-play input[name=rules]", "num_deals=2")
    page.click("#start-play")
    page.wait_for_selector("#status")
    clicks, cards_clicked, screenshot = 0, 0, False
    while page.get_attribute("#status", "data-over") != "yes":
        assert clicks < 300, "the session did not end"
        # Only the person's own hand is face up; the others are card backs.
        assert page.locator(".seat:not([data-seat='0']) .card:not(.back)").count() == 0
        choices = page.locator("#choices button")
        legal_cards = page.locator(".seat[data-seat='0'] button.card.legal")
        # The hand's cards are clickable exactly when they are legal choices; the rest are disabled.
        card_choices = [b for b in choices.all_inner_texts() if b.startswith(("lead ", "discard "))]
        assert legal_cards.count() == len(card_choices)
        disabled = page.locator(".seat[data-seat='0'] button.card:disabled").count()
        assert disabled + legal_cards.count() == page.locator(".seat[data-seat='0'] button.card").count()
        if not screenshot and legal_cards.count() and disabled:
            _not_blank(page, "play")
            screenshot = True
        before = page.inner_text("#log")
        with page.expect_response("**/act") as answer:
            if legal_cards.count() and clicks % 2 == 0:
                legal_cards.first.click()
                cards_clicked += 1
            else:
                choices.first.click()
        assert answer.value.ok
        page.wait_for_function("(before) => document.getElementById('log').textContent !== before", arg=before)
        clicks += 1
    assert "session over after 2 deal(s)" in page.inner_text("#status")
    assert "chips after deal 2" in page.inner_text("#log")
    assert cards_clicked > 0 and page.inner_text("#error") == ""
    record = json.loads(page.evaluate("fetch(document.getElementById('save-record').href).then(r => r.text())"))
    shown = [int(page.get_attribute(f".seat[data-seat='{s}'] .count", "data-chips")) for s in range(4)]
    assert shown == record["deals"][-1]["chips"]


def test_watch_a_session_to_its_end(page):
    page.click("#tab-watch")
    page.fill("#setup-watch input[name=seed]", "5")
    page.fill("#setup-watch input[name=rules]", "num_deals=2")
    page.click("#start-watch")
    page.wait_for_selector("#status")
    page.click("#step")
    page.click("#step")
    page.wait_for_function("document.getElementById('log').textContent.includes('leads')")
    assert page.locator(".seat .card.back").count() == 0  # all hands shown by default
    page.select_option("#view", "1")
    page.wait_for_selector(".seat .card.back")
    assert page.locator(".seat[data-seat='1'] .card.back").count() == 0
    page.select_option("#view", "all")
    page.wait_for_function("document.querySelectorAll('.seat .card.back').length === 0")
    _not_blank(page, "watch")
    page.select_option("#speed", "0")
    page.click("#run")
    page.wait_for_selector("#status[data-over=yes]", timeout=120_000)
    assert "chips after deal 2" in page.inner_text("#log")
    assert page.inner_text("#run") == "Run" and page.inner_text("#error") == ""


@pytest.fixture
def record_file(tmp_path):
    e = env(variant="michigan", num_deals=2)
    e.reset(seed=9)
    game, rng = e.unwrapped.game, random.Random(9)
    while not game.over:
        e.step(rng.choice(game.legal))
    path = tmp_path / "session.json"
    path.write_text(json.dumps(e.unwrapped.record()))
    return path, e.unwrapped.record()


def _frame(page) -> int:
    return int(page.get_attribute("#frame-label", "data-frame"))


def _go(page, button: str, expected: int) -> None:
    page.click(button)
    page.wait_for_selector(f"#frame-label[data-frame='{expected}']")


def test_replay_a_saved_record_forward_and_back(page, record_file):
    path, record = record_file
    states = [(g.pot, [s for s in g.boodle_stacks]) for g in replay_steps(record)]
    page.click("#tab-replay")
    page.set_input_files("#record-file", str(path))
    page.click("#start-replay")
    page.wait_for_selector("#frame-label[data-frame='0']")
    last = len(states) - 1
    for button, expected in (
        ("#forward", 1),
        ("#forward", 2),
        ("#forward", 3),
        ("#back", 2),
        ("#last", last),
        ("#back", last - 1),
        ("#first", 0),
        ("#forward", 1),
    ):
        _go(page, button, expected)
        pot, stacks = states[expected]
        assert page.inner_text("#pot .chips") == str(pot)
        assert [int(t) for t in page.locator("#layout .stack .chips").all_inner_texts()] == stacks
    assert page.locator("#dead .card").count() > 0  # the dead hand is drawn in a replay
    page.fill("#slider", str(last // 2))
    page.wait_for_selector(f"#frame-label[data-frame='{last // 2}']")
    _not_blank(page, "replay")
    _go(page, "#last", last)
    assert "session over" in page.inner_text("#status")


def test_a_bad_record_file_shows_a_message(page, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not a record")
    page.click("#tab-replay")
    page.set_input_files("#record-file", str(bad))
    page.click("#start-replay")
    page.wait_for_selector("#error.shown")
    assert "is not a JSON session record" in page.inner_text("#error")


def test_an_unknown_agent_shows_a_message(page):
    page.fill("#setup-play input[name=agents]", "nobody")
    page.click("#start-play")
    page.wait_for_selector("#error.shown")
    assert "unknown agent 'nobody'" in page.inner_text("#error")


def test_the_page_says_a_restart_loses_the_games(page):
    note = page.locator("#restart-note")
    assert note.is_visible()
    assert "restarting it loses them all" in note.inner_text()
