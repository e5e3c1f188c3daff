"""Repository-wide pytest set-up: modules of optional extras are not imported for doctests without them."""

import importlib.util

# newmarket_env.integrations.rllib imports Ray RLlib at the top (its classes subclass RLlib's); where the
# `ray` extra is not installed, --doctest-modules would fail to import it. Its tests in tests/ray skip then.
collect_ignore = [] if importlib.util.find_spec("ray") else ["newmarket_env/integrations/rllib.py"]

#: The words of tests/web/test_browser.py's skip reason when there is no browser to drive.
BROWSER_MISSING = "chromium is not installed"
BROWSER_HINT = (
    "the browser tests of the web app (tests/web/test_browser.py) were SKIPPED: {reason}.\n"
    "Enable them: apt-get install -y chromium (as root, or with sudo), then run make test again."
)


def pytest_terminal_summary(terminalreporter):
    """Say at the very end when the browser tests were skipped for want of chromium: a skip in the middle of a
    long run goes unseen, and a green run without them has not tested the web pages."""
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if BROWSER_MISSING in reason:
            terminalreporter.write_sep("=", "browser tests skipped", yellow=True, bold=True)
            terminalreporter.write_line(BROWSER_HINT.format(reason=reason.removeprefix("Skipped: ")))
            return
