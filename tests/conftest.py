"""Shared fixtures."""

import pytest
import torch

from tests.helpers import LineEnv


@pytest.fixture
def line_env():
    return LineEnv()


@pytest.fixture
def one_thread():
    """One torch thread (faster for small networks; the results of a seed do not depend on the
    machine's core count, and a run and its resume in another process reduce in the same
    order); the setting is restored afterwards."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
