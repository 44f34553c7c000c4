"""Fixtures of the DQN-family tests."""

import pytest


@pytest.fixture(autouse=True)
def _one_thread(one_thread):
    """Every DQN-family test runs on one torch thread (tests/conftest.py)."""
