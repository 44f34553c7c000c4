"""What the DQN-family learners feed their networks: env states (one env or a vector env) and
sampled batches, on the approximator's device."""

import numpy as np
import pytest
import torch

from rlcore import (
    Agent, CircularArraySARTSTrajectory, QBasedPolicy, StopAfterStep, run, testmode, update,
)
from rlcore.trajectories.samplers import Batch
from rlenvs import MultiThreadEnv
from rlzoo.inputs import batch_on, env_states, for_env, state_values
from rlzoo.experiments import registry
from rlzoo.experiments.cartpole import cartpole_env
from tests.rlzoo.dqns.dqn_helpers import (
    CARTPOLE, FixedStateEnv, learner_and_batch, linear_approximator, make_batch,
)


@pytest.fixture
def vector_env():
    env = MultiThreadEnv(lambda: cartpole_env(None), 3, seed=0)
    env.reset()
    yield env
    env.close()


def test_one_env_gets_a_batch_axis_and_a_vector_env_keeps_its_rows(vector_env):
    app = linear_approximator([[1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0]])
    one = FixedStateEnv(np.array([1.0, 2.0, 3.0, 4.0]))   # float64: placed as float32
    states = env_states(app, one)
    assert states.shape == (1, 4) and states.dtype == torch.float32
    # Q = W s = [s_0, 2 s_1] = [1, 4]: the first row for one env
    values = state_values(app, one)
    torch.testing.assert_close(values, torch.tensor([1.0, 4.0]))
    assert not values.requires_grad
    assert env_states(app, vector_env).shape == (3, 4)
    rows = vector_env.state()
    expected = torch.as_tensor(rows[:, :2] * [1.0, 2.0], dtype=torch.float32)
    torch.testing.assert_close(state_values(app, vector_env), expected)
    torch.testing.assert_close(for_env(torch.arange(6).view(3, 2), vector_env),
                               torch.arange(6).view(3, 2))
    torch.testing.assert_close(for_env(torch.arange(6).view(3, 2), one), torch.tensor([0, 1]))


@pytest.mark.parametrize("name", CARTPOLE)
def test_every_learner_acts_on_one_env_and_on_a_vector_env(name, vector_env):
    learner = registry.make(name, 0).policy.policy.learner
    rows = vector_env.state()
    single = FixedStateEnv(rows[1])
    assert learner(single).shape == (2,)
    assert learner(vector_env).shape == (3, 2)
    if name == "IQN_CartPole":  # its acting draws fractions τ: the shapes only
        return
    with testmode(learner):     # Rainbow's noisy layers draw no noise in test mode
        values = learner(vector_env)
        for i in range(3):      # row i is what the learner gives for sub-env i's state alone
            torch.testing.assert_close(values[i], learner(FixedStateEnv(rows[i])),
                                       rtol=1e-5, atol=1e-6)


def test_batch_on_leaves_a_batch_already_there_and_moves_any_other():
    batch = make_batch([[0.0]], [0], [1.0], [[1.0]])
    assert batch_on(batch, torch.device("cpu")) is batch
    moved = batch_on(batch, torch.device("meta"))
    assert moved is not batch and type(moved) is Batch
    assert moved["reward"].device.type == "meta"
    numpy = Batch(state=np.zeros((2, 3)), action=np.array([1, 0]),
                  terminal=np.array([False, True]), indices=np.array([5, 7]))
    placed = batch_on(numpy, torch.device("cpu"))
    # floats as float32 (as the approximator places its inputs), ints and flags as they are;
    # indices stay numpy (they index the replay)
    assert placed["state"].dtype == torch.float32 and placed["action"].dtype == torch.int64
    assert placed["terminal"].dtype == torch.bool
    assert isinstance(placed["indices"], np.ndarray) and placed["indices"].tolist() == [5, 7]


def _converted(batch, form):
    """The sampler's numpy ``batch`` as CPU tensors, with float64 floats, or with only the state
    a tensor."""
    if form == "tensor":
        return batch.to("cpu")
    out = Batch(batch)
    if form == "float64":
        for key, value in batch.items():
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                out[key] = value.astype(np.float64)
    else:  # mixed
        out["state"] = torch.from_numpy(batch["state"])
    return out


@pytest.mark.parametrize("form", ["tensor", "float64", "mixed"])
@pytest.mark.parametrize("name", CARTPOLE)
def test_a_learner_takes_its_samplers_numpy_batch_or_any_other_form(name, form):
    results = []
    for convert in (False, True):
        learner, batch = learner_and_batch(name)
        assert all(isinstance(v, np.ndarray) for v in batch.values())  # a numpy batch
        if convert:
            batch = _converted(batch, form)
        out = update(learner, batch)
        results.append((out, [p.detach().clone() for p in learner.approximator.model.parameters()]))
    (out, params), (converted_out, converted_params) = results
    torch.testing.assert_close(torch.as_tensor(converted_out), torch.as_tensor(out))
    for a, b in zip(params, converted_params, strict=True):
        torch.testing.assert_close(b, a)


@pytest.mark.parametrize("name", ["DQN_CartPole", "C51_CartPole", "QRDQN_CartPole",
                                  "IQN_CartPole", "REMDQN_CartPole", "Rainbow_CartPole"])
def test_a_vector_env_of_one_sub_env_gives_a_batch_of_one(name):
    # a MultiThreadEnv of one sub-env is still batched: (1, n_actions) values and one action per
    # sub-env, not the single env's (n_actions,) (n_envs is 1 for both, so dispatch decides)
    experiment = registry.make(name, 0, n_envs=2, steps=40, min_replay_history=32,
                               batch_size=32, eval_every=10**6)
    learner = experiment.policy.policy.learner
    with MultiThreadEnv("CartPole-v1", 1, seed=0) as env:
        env.reset()
        assert tuple(learner(env).shape) == (1, 2)
        agent = Agent(QBasedPolicy(learner, experiment.policy.policy.explorer),
                      CircularArraySARTSTrajectory(100, n_envs=1, state=((4,), np.float32),
                                                   prioritized="priority" in
                                                   experiment.policy.trajectory))
        run(agent, env, StopAfterStep(40))
    assert len(agent.trajectory) == 40
