"""Every explorer: the action is legal and ``prob`` is a distribution on the legal actions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlcore.explorers import (AbstractExplorer, BatchExplorer, EpsilonGreedyExplorer,
                              GreedyExplorer, GumbelSoftmaxExplorer, UCBExplorer,
                              WeightedExplorer, WeightedSoftmaxExplorer)

FACTORIES = {
    "epsilon_greedy": lambda n: EpsilonGreedyExplorer(epsilon_stable=0.1, decay_steps=5, seed=0),
    "greedy": lambda n: GreedyExplorer(seed=0),
    "ucb": lambda n: UCBExplorer(n, seed=0),
    "gumbel_softmax": lambda n: GumbelSoftmaxExplorer(seed=0),
    "weighted": lambda n: WeightedExplorer(seed=0),
    "weighted_softmax": lambda n: WeightedSoftmaxExplorer(seed=0),
    "batch": lambda n: BatchExplorer(GreedyExplorer(seed=0)),
}


@pytest.mark.parametrize("name", FACTORIES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_actions_are_legal_and_prob_is_a_distribution(name, data):
    n = data.draw(st.integers(1, 18))
    values = data.draw(st.lists(st.floats(0, 10), min_size=n, max_size=n))
    mask = data.draw(st.lists(st.booleans(), min_size=n, max_size=n).filter(any))
    if name == "weighted" and not any(v > 0 for v, m in zip(values, mask) if m):
        values = [v + 1.0 for v in values]
    explorer = FACTORIES[name](n)
    assert isinstance(explorer, AbstractExplorer)
    for training in (True, False):
        explorer.is_training = training
        probs = explorer.prob(values, mask)
        assert probs.shape == (n,)
        assert probs.sum() == pytest.approx(1.0)
        assert np.all(probs[~np.array(mask)] == 0)
        for _ in range(3):
            action = explorer(np.array(values), np.array(mask))
            assert isinstance(action, int) and mask[action]
