"""Shared fixtures."""

import pytest

from tests.helpers import LineEnv


@pytest.fixture
def line_env():
    return LineEnv()
