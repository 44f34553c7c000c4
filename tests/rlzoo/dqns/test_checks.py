"""Every DQN-family learner checks its env before the first step (rlzoo.dqns.checks): each
mismatch raises ``EnvMismatchError`` naming the value and what was expected, and nothing is
recorded or learned."""

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium import spaces

from rlcore import (
    Agent, CircularArrayPSARTTrajectory, CircularArraySARTSTrajectory,
    CircularArraySARTTrajectory, EnvMismatchError, EpsilonGreedyExplorer, QBasedPolicy,
    StopAfterStep, check_ambiguities, run,
)
from rlcore.dispatch import update
from rlcore.stages import PRE_EXPERIMENT_STAGE
from rlenvs import CartPoleEnv, GymEnv, MultiThreadEnv, StateTransformedEnv
from rlzoo.dqns import DQNLearner, NoisyLinear, QNetwork
from rlzoo.experiments import registry
from tests.rlzoo.dqns.dqn_helpers import adam_target, schedule

CARTPOLE_EXPERIMENTS = ["BasicDQN_CartPole", "DQN_CartPole", "PrioritizedDQN_CartPole",
                        "C51_CartPole", "QRDQN_CartPole", "IQN_CartPole", "REMDQN_CartPole",
                        "Rainbow_CartPole"]


def dqn_agent(net, state=((4,), np.float32), trajectory=None):
    learner = DQNLearner(adam_target(net), schedule=schedule(batch_size=4, min_replay_history=4))
    policy = QBasedPolicy(learner, EpsilonGreedyExplorer(epsilon_stable=0.1, seed=0))
    if trajectory is None:
        trajectory = CircularArraySARTTrajectory(100, state=state)
    return Agent(policy, trajectory)


def refused(agent, env, match):
    """Run ``agent`` in ``env``; assert it raises ``EnvMismatchError`` matching ``match``
    before recording anything."""
    with pytest.raises(EnvMismatchError, match=match):
        run(agent, env, StopAfterStep(20))
    assert all(len(trace) == 0 for trace in agent.trajectory.traces.values())


def test_a_continuous_action_space_is_refused_before_the_first_step():
    # today's failure 14 frames deep: "action 0 is not in the action space Box"
    agent = dqn_agent(QNetwork(3, 2, seed=0), state=((3,), np.float32))
    refused(agent, GymEnv("Pendulum-v1", seed=0),
            r"DQNLearner chooses among a Discrete set of actions, but the action space of "
            r"GymEnv\('Pendulum-v1'\) is Box\(-2\.0, 2\.0, \(1,\), float32\): discretise it")


def test_a_network_of_another_input_width_is_named_with_the_state_shape():
    # today: "mat1 and mat2 shapes cannot be multiplied" from inside torch
    refused(dqn_agent(QNetwork(3, 2, seed=0)), CartPoleEnv(seed=0),
            r"DQNLearner's network cannot take the states of GymEnv\('CartPole-v1'\): a state "
            r"has shape \(4,\) and dtype float32; its first layer Linear\(in_features=3, "
            r"out_features=64, bias=True\) takes inputs of width 3; expected a network whose "
            r"input is a batch of such states, e.g. QNetwork\(4, n_actions\)")


def test_a_network_for_another_number_of_actions_is_refused():
    refused(dqn_agent(QNetwork(4, 3, seed=0)), CartPoleEnv(seed=0),
            r"DQNLearner's network gives values for n_actions=3 actions, but the action space "
            r"of GymEnv\('CartPole-v1'\) is Discrete\(2\): build the network with n_actions=2")


def test_a_trajectory_of_another_state_shape_is_refused():
    refused(dqn_agent(QNetwork(4, 2, seed=0), state=((3,), np.float32)), CartPoleEnv(seed=0),
            r"CircularArraySARTTrajectory stores states of shape \(3,\), but "
            r"GymEnv\('CartPole-v1'\) has states of shape \(4,\): build it with "
            r"state=\(\(4,\), 'float32'\)")


def test_an_action_space_not_starting_at_zero_is_refused():
    env = GymEnv(gymnasium.make("CartPole-v1"), seed=0)
    env._action_space = spaces.Discrete(2, start=1)  # as an env with actions {1, 2} says
    refused(dqn_agent(QNetwork(4, 2, seed=0)), env,
            r"takes the actions 0\.\.n-1, but the action space of .* is Discrete\(2, start=1\)")


def dict_cart_pole():
    """CartPole whose states are ``{"x": state}``."""
    return StateTransformedEnv(
        CartPoleEnv(seed=0), state_mapping=lambda s: {"x": s},
        state_space_mapping=lambda space: spaces.Dict({"x": space}))


def test_dict_observations_are_refused_with_the_flattening_wrapper_named():
    refused(dqn_agent(QNetwork(4, 2, seed=0)), dict_cart_pole(),
            r"has Dict observations Dict\('x': Box\(.*\)\), which a replay cannot store as "
            r"arrays; expected a Box, Discrete, MultiDiscrete or MultiBinary state space: "
            r"flatten them: GymEnv\(gymnasium.wrappers.FlattenObservation\(gym_env\)\)")


def test_the_named_flattening_wrappers_make_dict_observations_learnable():
    inner = dict_cart_pole()
    space = inner.state_space()
    ours = StateTransformedEnv(inner, state_mapping=lambda s: spaces.flatten(space, s),
                               state_space_mapping=spaces.flatten_space)
    gym = gymnasium.make("CartPole-v1")
    theirs = GymEnv(gymnasium.wrappers.FlattenObservation(gymnasium.wrappers.TransformObservation(
        gym, lambda o: {"x": o}, spaces.Dict({"x": gym.observation_space}))), seed=0)
    for env in (ours, theirs):
        agent = dqn_agent(QNetwork(4, 2, seed=0), state=(env.state_space().shape, np.float32))
        run(agent, env, StopAfterStep(20))
        assert len(agent.trajectory) == 20


def test_a_sart_trajectory_on_a_vector_env_is_refused_before_the_first_step():
    with MultiThreadEnv("CartPole-v1", 2, seed=0) as env:
        refused(dqn_agent(QNetwork(4, 2, seed=0)), env,
                r"CircularArraySARTTrajectory records one environment per step, but "
                r"MultiThreadEnv\(n=2, mode='sync'\) steps n_envs=2 sub-environments: use "
                r"CircularArraySARTSTrajectory\(capacity, n_envs=2, \.\.\.\)")
    with MultiThreadEnv("CartPole-v1", 3, seed=0) as env:
        agent = dqn_agent(QNetwork(4, 2, seed=0), trajectory=CircularArraySARTSTrajectory(
            100, n_envs=2))
        refused(agent, env, r"built with n_envs=2 but n_envs\(MultiThreadEnv\(n=3, "
                            r"mode='sync'\)\) is 3: build it with n_envs=3")


def test_a_vector_env_is_checked_through_one_sub_envs_spaces():
    with MultiThreadEnv("CartPole-v1", 2, seed=0) as env:
        agent = dqn_agent(QNetwork(3, 2, seed=0),
                          trajectory=CircularArraySARTSTrajectory(100, n_envs=2))
        refused(agent, env, r"a state has shape \(4,\) .* Linear\(in_features=3")
        agent = dqn_agent(QNetwork(4, 2, seed=0),
                          trajectory=CircularArraySARTSTrajectory(100, n_envs=2))
        run(agent, env, StopAfterStep(20))
        assert len(agent.trajectory) == 20


@pytest.mark.parametrize("name", CARTPOLE_EXPERIMENTS)
def test_every_learner_of_the_family_checks_its_env(name):
    policy = registry.make(name, 0, steps=100).policy.policy
    prioritized = name.startswith(("Prioritized", "Rainbow"))
    replay = CircularArrayPSARTTrajectory if prioritized else CircularArraySARTTrajectory
    # the action space first
    refused(Agent(policy, replay(100, state=((3,), np.float32))),
            GymEnv("Pendulum-v1", seed=0), r"chooses among a Discrete set of actions, but the "
                                           r"action space of GymEnv\('Pendulum-v1'\) is Box")
    # then the network's input: CartPole with a fifth state variable
    padded = StateTransformedEnv(
        CartPoleEnv(seed=0), state_mapping=lambda s: np.append(s, np.float32(0)),
        state_space_mapping=lambda space: spaces.Box(-np.inf, np.inf, (5,), np.float32))
    refused(Agent(policy, replay(100, state=((5,), np.float32))), padded,
            r"network cannot take the states of .*: a state has shape \(5,\) and dtype float32; "
            r"its first layer Linear\(in_features=4")


def test_a_prioritized_learner_refuses_a_plain_replay_before_the_first_step():
    policy = registry.make("PrioritizedDQN_CartPole", 0, steps=100).policy.policy
    with pytest.raises(TypeError, match="needs a prioritized trajectory"):
        run(Agent(policy, CircularArraySARTTrajectory(100)), CartPoleEnv(seed=0),
            StopAfterStep(5))


@pytest.mark.parametrize("name", ["Rainbow_CartPole", "IQN_CartPole"])
def test_the_check_draws_no_noise_and_moves_no_random_state(name):
    agent = registry.make(name, 0, steps=100).policy
    learner = agent.policy.learner
    model = learner.approximator.model
    generators = [getattr(learner, g) for g in ("generator", "acting_generator",
                                                "evaluation_generator") if hasattr(learner, g)]
    before = [g.get_state() for g in generators]
    update(agent, CartPoleEnv(seed=0), PRE_EXPERIMENT_STAGE)
    assert model.training
    assert all(layer._generator is None for layer in model.modules()
               if isinstance(layer, NoisyLinear))  # no forward in training mode yet
    assert all(torch.equal(b, g.get_state()) for b, g in zip(before, generators))


def test_the_check_rules_resolve_without_ambiguity():
    check_ambiguities()
