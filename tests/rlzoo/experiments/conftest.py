"""Fixtures of the experiment tests."""

import pytest
import torch


@pytest.fixture
def one_thread():
    """Learning runs use one torch thread (faster for small networks, and the results of a
    seed do not depend on the machine's core count); the setting is restored afterwards."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
