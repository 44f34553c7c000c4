"""Fixtures of the DQN-family tests."""

import pytest
import torch


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny networks train faster on one thread; restore the setting afterwards."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
