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
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

# Debian's chromium; NEWMARKET_CHROMIUM points elsewhere (the test of the skip message points it at nothing).
CHROMIUM = os.environ.get("NEWMARKET_CHROMIUM", "/usr/bin/chromium")
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
    # The words "chromium is not installed" make the root conftest.py repeat this at the end of the run.
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


def _open(browser, url: str):
    """A fresh page of ``url``, ready; after the test, no JavaScript error and no request of the page's own
    (outside /api/) answered 4xx or 5xx. (Headless chromium asks for no icon: test_the_page_has_an_icon does.)"""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    failed: list[str] = []
    # Answers the tests ask for on purpose (a bad form, a bad file) are 4xx of /api; the page's own loads are not.
    page.on(
        "response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 and "/api/" not in r.url else None
    )
    page.goto(url)
    page.wait_for_selector("body[data-ready=yes]")
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
    assert not failed, f"requests that failed: {failed}"


@pytest.fixture
def page(browser, server):
    yield from _open(browser, server)


# Agents the person starting the server seats (newmarket serve --agent): a saved network and a MODULE:ATTR,
# under a name long enough to be cut on a seat.
TRAINED = Path(__file__).resolve().parents[2] / "agents" / "trained" / "ppo-newmarket.npz"
LONG_NAME = "lab-agent-with-a-rather-long-name-2026"
SEATED_ARGS = ["--agent", f"mine={TRAINED}", "--agent", f"{LONG_NAME}=newmarket_env.agents.random_agent:RandomAgent"]


@pytest.fixture(scope="module")
def seated_server():
    """``newmarket serve --agent ...`` as a process, as a person starts it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "newmarket_env.cli", "serve", "--port", str(port), *SEATED_ARGS]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 60
    while True:
        assert process.poll() is None and time.monotonic() < deadline, process.stdout.read() if process.stdout else ""
        try:
            urllib.request.urlopen(url, timeout=5).close()
            break
        except OSError:
            time.sleep(0.2)
    yield url
    process.terminate()
    process.wait(timeout=30)


@pytest.fixture
def seated_page(browser, seated_server):
    yield from _open(browser, seated_server)


def _not_blank(page, name: str | None = None) -> None:
    """The screenshot is a picture: many colours, the felt green and the white of card faces. With a
    ``name``, it is one of the README's pictures (saved as web_NAME.png under NEWMARKET_SCREENSHOTS)."""
    from io import BytesIO

    from PIL import Image

    png = page.screenshot(full_page=True)
    pixels = np.asarray(Image.open(BytesIO(png)).convert("RGB"))
    colours = len(np.unique(pixels.reshape(-1, 3).astype(np.int32) @ np.array([65536, 256, 1], dtype=np.int32)))
    assert colours > 100 and pixels.std() > 20, (colours, pixels.std())
    felt = np.all(np.abs(pixels.astype(int) - (31, 107, 58)) < 40, axis=-1).mean()
    assert felt > 0.05, felt
    folder = os.environ.get("NEWMARKET_SCREENSHOTS")
    if folder and name:
        with open(os.path.join(folder, f"web_{name}.png"), "wb") as fh:
            fh.write(png)


def test_play_a_whole_session_by_clicking(page):
    page.fill("#setup-play input[name=agents]", "greedy")
    page.fill("#setup-play input[name=seed]", "12")
    page.fill("#setup-play input[name=rules]", "num_deals=2")
    page.click("#start-play")
    page.wait_for_selector("#status")
    clicks, cards_clicked, screenshot, results = 0, 0, False, 0
    while page.get_attribute("#status", "data-over") != "yes":
        assert clicks < 300, "the session did not end"
        if page.locator("#next-deal").count():
            # The deal's result waits for the person: every hand left face up, then on to the next deal.
            results += 1
            assert page.get_attribute("#summary", "data-deal") == str(results)
            assert page.locator("#choices button").count() == 0 and page.locator(".seat").count() == 0
            with page.expect_response("**/next"):
                page.click("#next-deal")
            page.wait_for_selector("#summary", state="detached")
            continue
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
            _not_blank(page)
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
    assert results == 1 and page.get_attribute("#summary", "data-deal") == "2"  # the last result, at the end
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
    _not_blank(page)
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
    _not_blank(page)
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


def test_a_record_with_edited_results_shows_why_it_is_not_replayed(page, record_file, tmp_path):
    _, record = record_file
    record["deals"][0]["chips"][2] += 5
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(record))
    page.click("#tab-replay")
    page.set_input_files("#record-file", str(edited))
    page.click("#start-replay")
    page.wait_for_selector("#error.shown")
    said = page.inner_text("#error")
    assert "does not match what its cards and decisions give" in said and "deals[0].chips[2]" in said
    assert page.locator(".seat").count() == 0  # nothing of it is shown


def test_an_unknown_agent_shows_a_message(page):
    page.fill("#setup-play input[name=agents]", "nobody")
    page.click("#start-play")
    page.wait_for_selector("#error.shown")
    assert "unknown agent 'nobody'" in page.inner_text("#error")


def test_the_page_says_a_restart_loses_the_games(page):
    note = page.locator("#restart-note")
    assert note.is_visible()
    assert "restarting it loses them all" in note.inner_text()


# ---------------------------------------------------------------- the story of a deal, and what agents think
def _records_file(tmp_path, count: int = 3):
    """A tournament-like records.jsonl.gz: ``count`` sessions, each with the agents of its seats."""
    import gzip

    entries = []
    for k in range(count):
        e = env(variant="newmarket", num_deals=1)
        e.reset(seed=30 + k)
        game, rng = e.unwrapped.game, random.Random(k)
        while not game.over:
            e.step(rng.choice(game.legal))
        seats = ["greedy", "random", "control", f"lowest-{k + 1}"]
        entries.append({"title": f"session {k + 1}", "seats": seats, "record": e.unwrapped.record()})
    path = tmp_path / "records.jsonl.gz"
    path.write_bytes(gzip.compress("\n".join(json.dumps(x) for x in entries).encode()))
    return path


def test_replay_takes_a_second_files_game_number_and_names_the_agents(page, record_file, tmp_path):
    path, _ = record_file
    page.click("#tab-replay")
    page.set_input_files("#record-file", str(path))
    page.click("#start-replay")
    page.wait_for_selector("#frame-label[data-frame='0']")
    assert page.get_attribute("#record-game", "max") == "1"
    # A second file, of three records: its game 3 opens (the first file's limit of 1 does not hold).
    page.set_input_files("#record-file", str(_records_file(tmp_path)))
    page.fill("#record-game", "3")
    with page.expect_response("**/api/replays?game=3") as answer:
        page.click("#start-replay")
    assert answer.value.ok
    page.wait_for_function("document.getElementById('status')?.textContent.startsWith('session 3')")
    names = page.locator(".seat .who b").all_inner_texts()
    assert names == ["player_0 (greedy)", "player_1 (random)", "player_2 (control)", "player_3 (lowest-3)"]
    # A file that fails to open leaves no old replay on screen.
    bad = tmp_path / "bad.json"
    bad.write_text("{not a record")
    page.set_input_files("#record-file", str(bad))
    page.fill("#record-game", "1")
    page.click("#start-replay")
    page.wait_for_selector("#error.shown")
    assert page.locator("#status").count() == 0 and page.locator(".seat").count() == 0


def test_play_shows_the_new_hand_and_each_deals_result_before_the_next(page):
    """michigan, seat 1 (not the dealer): bid for the widow; the deal's end waits with every hand left."""
    page.select_option("#setup-play select[name=variant]", "michigan")
    page.fill("#setup-play input[name=seat]", "1")
    page.fill("#setup-play input[name=agents]", "greedy")
    page.fill("#setup-play input[name=seed]", "7")
    page.fill("#setup-play input[name=rules]", "num_deals=2")
    page.click("#start-play")
    page.wait_for_selector("#status")
    took_widow = False
    for _ in range(300):
        if page.get_attribute("#status", "data-over") == "yes" or page.locator("#next-deal").count():
            break
        bids = page.locator("#choices button", has_text="bid ")
        button = bids.first if bids.count() else page.locator("#choices button").first
        took_widow |= button.inner_text().startswith("bid ")
        before = page.inner_text("#log")
        with page.expect_response("**/act"):
            button.click()
        page.wait_for_function("(before) => document.getElementById('log').textContent !== before", arg=before)
    assert took_widow and page.locator("#next-deal").count() == 1  # deal 1 ended: the table waits
    log = page.inner_text("#log")
    assert "you take the widow\nyour hand now: " in log  # the new hand, told right after the exchange
    assert "==== deal 2" not in log  # the next deal is not told before the person goes on
    # Every hand left, face up, with the cards each loser paid for.
    rows = page.locator("#summary .sumseat")
    assert rows.count() == 4
    paid = {}
    for line in page.locator("#summary .facts div").all_inner_texts():
        if line.endswith("for the cards left"):
            paid[line.split(" paid ")[0]] = int(line.split()[-5])
    per_card = 1  # michigan pays a chip a card
    for k in range(4):
        row = rows.nth(k)
        assert row.locator(".card.back").count() == 0
        assert row.locator(".card").count() * per_card == paid.get(row.locator(".nm").inner_text(), 0)
    after_deal_1 = [int(t.split()[-1]) for t in rows.locator(".delta").all_inner_texts()]
    _not_blank(page, "play")
    page.click("#next-deal")
    page.wait_for_selector("#summary", state="detached")
    page.wait_for_selector(".seat")
    log = page.inner_text("#log")
    assert "==== deal 2 of 2" in log
    assert f"chips after deal 1: player_0 (greedy) {after_deal_1[0]} (" in log


def _step(page) -> None:
    """Click Step and wait until its move is drawn in full (after any card-by-card showing)."""
    drawn = int(page.evaluate("Number(document.body.dataset.steps || 0)"))
    page.click("#step")
    page.wait_for_function(f"Number(document.body.dataset.steps || 0) > {drawn}")


def test_watch_shows_what_the_agent_thought_and_a_watched_seat_is_not_you(page):
    page.click("#tab-watch")
    page.fill("#setup-watch input[name=agents]", "greedy,ppo-newmarket,search,control")
    page.fill("#setup-watch input[name=seed]", "4")
    page.click("#start-watch")
    page.wait_for_selector("#status")
    headers = set()  # the figures each agent gave: scores, probabilities, mean chips and worlds
    for _ in range(80):
        _step(page)
        if page.locator("#thoughts-panel:not(.hidden) tr.taken").count():
            headers.add(" ".join(page.locator("#thoughts-table th").all_inner_texts()))
            if page.locator("#thoughts-table .bar").count() > 1 and len(headers) >= 3:
                break  # the network's probabilities over several actions, after the others had their say
    assert {"action probability logit", "action mean chips worlds"} <= headers, headers
    assert page.locator("#thoughts-panel:not(.hidden)").count() == 1
    assert page.inner_text("#thoughts-who").startswith("What player_")
    assert page.locator("#thoughts-table tr.taken").count() == 1  # the action taken, marked
    taken = page.inner_text("#thoughts-table tr.taken td:first-child")
    assert taken.split()[-1] in page.inner_text("#log")
    _not_blank(page, "watch")
    # From one seat's view the question is said about the seat, never to "you".
    page.select_option("#view", "2")
    page.wait_for_selector(".seat .card.back")
    for _ in range(12):
        question = page.inner_text("#question")
        assert "Your " not in question and " you " not in question, question
        _step(page)


def _first_frame_with_forced_follows(record, least: int = 3) -> int:
    """The first replay frame whose step (the decision before it and what followed) played ``least`` cards."""
    plays_per_step, count = [], 0
    for event in (e for d in record["deals"] for e in d["events"]):
        if "action" in event:  # a decision: the plays counted so far belong to the step before it
            plays_per_step.append(count)
            count = 0
        count += event["type"] == "play"
    plays_per_step.append(count)
    # plays_per_step[k] counts the plays of step k: frame k shows the table after decision k - 1 and its plays.
    return next(k for k in range(2, len(plays_per_step)) if plays_per_step[k] >= least)


def test_replay_plays_itself_with_keys_and_shows_forced_follows_card_by_card(page, record_file):
    path, record = record_file
    page.click("#tab-replay")
    page.set_input_files("#record-file", str(path))
    page.click("#start-replay")
    page.wait_for_selector("#frame-label[data-frame='0']")
    frames = int(page.get_attribute("#slider", "max")) + 1
    page.keyboard.press("End")
    page.wait_for_selector(f"#frame-label[data-frame='{frames - 1}']")
    page.keyboard.press("Home")
    page.wait_for_selector("#frame-label[data-frame='0']")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#frame-label[data-frame='1']")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#frame-label[data-frame='0']")
    # Forced follows one card at a time: step into a frame whose step played several cards.
    target = _first_frame_with_forced_follows(record)
    page.fill("#slider", str(target - 1))
    page.wait_for_selector(f"#frame-label[data-frame='{target - 1}']")
    page.select_option("#replay-speed", "1500")  # the slowest: each card stays up long enough to be seen
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.getElementById('frame-label').textContent.endsWith(': card 1')")
    one = page.locator("#played .card.just").all_inner_texts()
    page.wait_for_function("document.getElementById('frame-label').textContent.endsWith(': card 2')")
    two = page.locator("#played .card.just").all_inner_texts()
    assert len(one) == 1 and len(two) == 2
    page.wait_for_selector(f"#frame-label[data-frame='{target}']")
    moves = [m["card"] for m in page.evaluate("current.data.moves") if m["type"] == "play"]
    assert len(moves) >= 3 and page.locator("#played .card.just").count() == len(moves)
    # Auto-play: space starts it, the frames advance by themselves; space pauses it.
    page.select_option("#replay-speed", "60")
    page.keyboard.press(" ")
    assert page.inner_text("#autoplay") == "Pause"
    page.wait_for_function(f"Number(document.getElementById('frame-label').dataset.frame) >= {target + 3}")
    page.keyboard.press(" ")
    assert page.inner_text("#autoplay") == "Play"
    page.click("#autoplay")
    page.wait_for_selector(f"#frame-label[data-frame='{frames - 1}']", timeout=120_000)
    page.wait_for_function("document.getElementById('autoplay').textContent === 'Play'")
    assert page.get_attribute("#summary", "data-deal") == "2"  # the last frame ends deal 2: its result


def test_long_agent_names_do_not_wrap_the_seat_headers(page):
    page.click("#tab-watch")
    page.fill("#setup-watch input[name=agents]", "exit-newmarket-search")
    page.fill("#setup-watch input[name=seed]", "1")
    page.click("#start-watch")
    page.wait_for_selector(".seat .who")
    names = page.locator(".seat .who > span:first-child")
    heights = names.evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")
    line = page.evaluate("parseFloat(getComputedStyle(document.querySelector('.seat .who b')).lineHeight)")
    assert max(heights) < 1.5 * line, (heights, line)  # each name on one line
    headers = page.locator(".seat .who").evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")
    assert len(set(headers)) == 1, headers  # every header alike: none wraps further than another
    title = page.locator(".seat .who > span:first-child").first
    assert "exit-newmarket-search" in title.inner_text() or title.get_attribute("title")


def test_replay_shows_what_the_agents_thought(page, tmp_path):
    """A session watched with agents that explain themselves: each replay step shows the thoughts behind it."""
    from newmarket_env.web.tables import TableGame

    table = TableGame("watch", agents=["search", "greedy", "ppo-newmarket", "control"], seed=3)
    while not table.game.over:
        table.step()
    record = table.record()
    path = tmp_path / "watched.json"
    path.write_text(json.dumps(record))
    by_frame = {entry["decision"] + 1: entry for entry in record["thoughts"]}
    page.click("#tab-replay")
    page.set_input_files("#record-file", str(path))
    page.click("#start-replay")
    page.wait_for_selector("#frame-label[data-frame='0']")
    frames = int(page.get_attribute("#slider", "max")) + 1
    searched = [k for k, e in by_frame.items() if e["agent"] == "search" and k < frames]
    shown = 0
    for k in searched[2:8]:
        page.fill("#slider", str(k))
        page.wait_for_selector(f"#frame-label[data-frame='{k}']")
        entry = by_frame[k]
        assert page.inner_text("#thoughts-summary") == entry["summary"]
        rows = page.locator("#thoughts-table tr[data-action]")
        assert rows.count() == len(entry["actions"])
        assert page.get_attribute("#thoughts-table tr.taken", "data-action") == str(entry["action"])
        assert page.inner_text("#thoughts-who") == "What player_0 (search) thought of its move"
        shown += 1
        if page.locator("#played .card.just").count() >= 2:
            break
    assert shown
    _not_blank(page, "replay")


def test_watch_steps_through_forced_follows_card_by_card(page):
    from newmarket_env.web.tables import TableGame

    agents = ["greedy", "random", "control", "lowest"]
    table = TableGame("watch", agents=agents, seed=8, rules={"num_deals": 1})
    steps = 0
    while True:  # the first step (with the page's settings) whose move made others follow with 3 cards or more
        table.step()
        steps += 1
        if len([m for m in table.moves if m["type"] == "play"]) >= 3:
            break
    page.click("#tab-watch")
    page.fill("#setup-watch input[name=agents]", ",".join(agents))
    page.fill("#setup-watch input[name=seed]", "8")
    page.fill("#setup-watch input[name=rules]", "num_deals=1")
    page.click("#start-watch")
    page.wait_for_selector("#status")
    page.select_option("#speed", "1000")  # the slowest: each card stays up long enough to be seen
    for _ in range(steps - 1):
        _step(page)
    page.click("#step")
    page.wait_for_function("document.getElementById('table').dataset.partial === '1'")
    assert page.locator("#played .card.just").count() == 1
    page.wait_for_function("document.getElementById('table').dataset.partial === '2'")
    assert page.locator("#played .card.just").count() == 2
    page.wait_for_function("document.getElementById('table').dataset.partial === undefined")
    played = [m["card"] for m in table.moves if m["type"] == "play"]
    assert sorted(page.locator("#played .card.just").evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(
        played
    )


# ---------------------------------------------------------------- agents seated by the server, the form, the tabs
def _names(page) -> list[str]:
    return page.locator(".seat .who b").all_inner_texts()


def test_the_servers_own_agents_are_offered_and_sit_at_play_and_watch_tables(seated_page):
    page = seated_page
    for mode in ("play", "watch"):
        offered = page.locator(f"#agents-{mode} button.seated").evaluate_all("els => els.map(e => e.dataset.agent)")
        assert offered == ["mine", LONG_NAME]
    page.click("#tab-watch")
    page.click("#agents-watch button[data-agent=mine]")
    assert page.input_value("#setup-watch input[name=agents]") == "mine"
    page.fill("#setup-watch input[name=seed]", "4")
    page.click("#start-watch")
    page.wait_for_selector(".seat")
    assert _names(page) == [f"player_{s} (mine)" for s in range(4)]
    for _ in range(3):
        _step(page)
    record = json.loads(page.evaluate("fetch(`/api/games/${current.id}/record`).then(r => r.text())"))
    assert record["agents"] == ["mine"] * 4 and record["thoughts"]  # the network said what it thought
    page.click("#tab-play")
    page.click("#agents-play button[data-agent=mine]")
    page.click("#agents-play button[data-agent=random]", modifiers=["Shift"])
    assert page.input_value("#setup-play input[name=agents]") == "mine,random"  # shift-click: one more seat
    page.click(f"#agents-play button[data-agent='{LONG_NAME}']")
    page.fill("#setup-play input[name=seed]", "4")
    page.click("#start-play")
    page.wait_for_selector(".seat")
    assert _names(page)[1:] == [f"player_{s} ({LONG_NAME})" for s in (1, 2, 3)]
    with page.expect_response("**/act") as answer:
        page.locator("#choices button").first.click()
    assert answer.value.ok and page.inner_text("#error") == ""


_BADGE_WHOLE = """badge => {
  const r = badge.getBoundingClientRect();
  if (r.width < 10 || r.height < 5) return false;
  for (let el = badge.parentElement; el && !el.classList.contains("seat"); el = el.parentElement) {
    const s = getComputedStyle(el);
    if (s.overflowX !== "visible" || s.overflow !== "visible") {
      const p = el.getBoundingClientRect();
      if (r.left < p.left - 0.5 || r.right > p.right + 0.5) return false;  // cut by a clipping box
    }
  }
  const seat = badge.closest(".seat").getBoundingClientRect();
  return r.left >= seat.left && r.right <= seat.right;
}"""


@pytest.mark.parametrize("mode", ["watch", "play"])
def test_the_dealer_badge_stays_whole_beside_a_long_name(seated_page, mode):
    page = seated_page
    page.click(f"#tab-{mode}")
    page.fill(f"#setup-{mode} input[name=agents]", LONG_NAME)
    page.fill(f"#setup-{mode} input[name=seed]", "1")
    page.click(f"#start-{mode}")
    page.wait_for_selector(".seat .badge")
    dealer = page.get_attribute(".seat:has(.badge)", "data-seat")
    if mode == "play" and dealer == "0":  # the person deals: sit elsewhere, so that an agent deals
        page.fill("#setup-play input[name=seat]", "1")
        page.click("#start-play")
        page.wait_for_function(
            f"document.querySelector('.seat[data-seat=\"0\"] b').textContent.includes('{LONG_NAME}')"
        )
    name = page.locator(".seat:has(.badge) .who > span").first
    assert LONG_NAME in name.get_attribute("title")
    assert name.evaluate(
        "e => e.scrollWidth > e.clientWidth || e.querySelector('b').scrollWidth > e.querySelector('b').clientWidth"
    )
    badge = page.locator(".seat .badge")
    assert badge.inner_text() == "dealer" and badge.evaluate(_BADGE_WHOLE), "the dealer badge is cut"


def _checked(page, mode: str, before: str | None) -> str:
    """Wait for the form's check after ``before`` to come back; its number."""
    page.wait_for_function(
        f"(b) => (document.getElementById('setup-{mode}').dataset.checked || null) !== b", arg=before, timeout=WAIT_MS
    )
    return page.get_attribute(f"#setup-{mode}", "data-checked")


def test_the_form_says_before_the_deal_which_agents_refuse_its_rules(page):
    page.click("#tab-watch")
    rules, note = "#setup-watch input[name=rules]", "#note-watch"
    seen = page.get_attribute("#setup-watch", "data-checked")
    assert page.get_attribute(rules, "placeholder") == "num_deals=1"  # random, greedy, ...: any rules
    page.fill("#setup-watch input[name=agents]", "exit-newmarket")  # a network trained on 4 deals
    seen = _checked(page, "watch", seen)
    placeholder = page.get_attribute(rules, "placeholder")
    assert "num_deals" not in placeholder and "exit-newmarket" in placeholder, placeholder
    assert page.inner_text(note) == ""  # the preset's own rules: accepted
    page.fill(rules, "num_deals=1")
    seen = _checked(page, "watch", seen)
    assert "exit-newmarket will refuse this table" in page.inner_text(note)
    assert "num_deals (trained 4, here 1)" in page.inner_text(note)
    page.fill("#setup-watch input[name=agents]", "random")
    seen = _checked(page, "watch", seen)
    assert page.inner_text(note) == ""
    page.fill(rules, "")
    _checked(page, "watch", seen)
    assert page.get_attribute(rules, "placeholder") == "num_deals=1"
    # The Play form's example is one its agents accept: typed in as it stands, the table is dealt.
    page.click("#tab-play")
    example = page.get_attribute("#setup-play input[name=rules]", "placeholder")
    page.fill("#setup-play input[name=rules]", example)
    page.click("#start-play")
    page.wait_for_selector(".seat")
    assert page.inner_text("#error") == ""


def test_each_tab_shows_its_own_table(page):
    page.fill("#setup-play input[name=players]", "3")
    page.fill("#setup-play input[name=seed]", "2")
    page.fill("#setup-play input[name=rules]", "num_deals=1")
    page.click("#start-play")
    page.wait_for_selector("#status")
    clicks = 0
    while page.get_attribute("#status", "data-over") != "yes":  # a finished Play table
        assert clicks < 100, "the session did not end"
        before = page.inner_text("#log")
        with page.expect_response("**/act"):
            page.locator("#choices button").first.click()
        page.wait_for_function("(before) => document.getElementById('log').textContent !== before", arg=before)
        clicks += 1
    played = page.inner_text("#status")
    page.click("#tab-watch")
    assert page.locator("#table.empty").count() == 1 and page.locator(".seat").count() == 0
    assert page.locator("#save-record").count() == 0 and page.inner_text("#log") == ""
    page.fill("#setup-watch input[name=seed]", "2")
    page.click("#start-watch")
    page.wait_for_selector(".seat")
    watched = page.inner_text("#status")
    page.click("#tab-replay")
    assert page.locator("#table.empty").count() == 1
    page.click("#tab-play")
    page.wait_for_selector("#status[data-over=yes]")
    assert page.inner_text("#status") == played and page.locator("#save-record").count() == 1
    assert page.locator("#watch-controls:not(.hidden)").count() == 0
    page.click("#tab-watch")
    page.wait_for_selector("#status[data-over=no]")
    assert page.inner_text("#status") == watched and page.locator("#watch-controls:not(.hidden)").count() == 1


def test_the_page_has_an_icon(page):
    assert page.get_attribute("link[rel=icon]", "href") == "/favicon.ico"
    answer = page.request.get(page.url.rstrip("/") + "/favicon.ico")
    assert answer.status == 200 and answer.headers["content-type"] == "image/x-icon"
    from io import BytesIO

    from PIL import Image

    icon = Image.open(BytesIO(answer.body()))  # Pillow reads it as an icon: an independent check of the bytes
    assert icon.format == "ICO" and icon.size == (32, 32)
    pixels = np.asarray(icon.convert("RGB"))
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) >= 3  # felt, card and the red of the diamond
