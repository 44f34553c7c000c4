import torch

from rlcore.approximators import NeuralNetworkApproximator, TabularQApproximator
from rlcore.explorers import EpsilonGreedyExplorer
from rlcore.policies import Agent, QBasedPolicy, testmode
from rlcore.trajectories import VectorSARTTrajectory
from rlzoo.tabular import TDLearner


def test_testmode_makes_explorers_greedy_and_restores_them():
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.5, seed=0)
    policy = Agent(QBasedPolicy(TDLearner(TabularQApproximator(n_state=3, n_action=2),
                                          method="Q"), explorer), VectorSARTTrajectory())
    values = [0.0, 1.0]
    with testmode(policy):
        assert explorer.is_training is False
        assert all(explorer(values) == 1 for _ in range(200))
    assert explorer.is_training is True
    assert {explorer(values) for _ in range(200)} == {0, 1}


def test_testmode_puts_torch_modules_in_eval_and_restores_on_error():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.5))
    app = NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(), lr=0.1))
    holder = {"approximator": app}
    try:
        with testmode(holder):
            assert not model.training and not model[1].training
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert model.training and model[1].training


def test_testmode_restores_mixed_module_states():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.5))
    model.eval()
    model[1].train()  # a submodule left in training mode under an eval parent
    with testmode([model]):
        assert not any(m.training for m in model.modules())
    assert not model.training and not model[0].training and model[1].training
