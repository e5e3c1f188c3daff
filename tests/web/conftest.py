"""What the web tests share: a test client that speaks to the app with a Host it serves."""

from __future__ import annotations

import pytest


@pytest.fixture
def client():
    from fastapi.testclient import TestClient  # the web extra: modules that use this fixture skip without it

    from newmarket_env.web import create_app

    return TestClient(create_app(), base_url="http://localhost")  # a Host the app serves
