"""ActorPolicy with the actor networks: one action for one env, n for a vector env, the mode in
test mode; the networks' outputs and initialisation; ClipActionEnv."""

import numpy as np
import pytest
import torch

from rlcore import DistributionExplorer, GaussianNoiseExplorer, NeuralNetworkApproximator, testmode
from rlcore.logger import scalars
from rlenvs import CartPoleEnv, ClipActionEnv, MultiThreadEnv, PendulumEnv
from rlzoo.policy_gradient import (
    ActorCritic, ActorPolicy, CategoricalActor, DeterministicActor, GaussianActor,
    ObservationNormalizer, PPOLearner, QCritic, TanhGaussianActor, ValueCritic,
)


def ppo_policy(actor, n_state=4):
    model = ActorCritic(actor, ValueCritic(n_state, seed=1))
    learner = PPOLearner(NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters())))
    return ActorPolicy(learner, DistributionExplorer(seed=0))


def test_one_action_for_one_env_and_n_for_a_vector_env():
    policy = ppo_policy(CategoricalActor(4, 2, seed=0))
    env = CartPoleEnv(seed=0)
    env.reset()
    action = policy(env)
    assert np.ndim(action) == 0 and action in (0, 1)
    env.check_action(action)
    with MultiThreadEnv(lambda: CartPoleEnv(), 3, seed=0) as vector:
        vector.reset()
        actions = policy(vector)
        assert actions.shape == (3,) and actions.dtype == np.int64
        assert policy.prob(vector).shape == (3, 2)


def test_a_gaussian_policy_acts_in_a_clipped_env_and_takes_the_mean_in_test_mode():
    actor = GaussianActor(3, 1, log_std_init=2.0, seed=0)  # σ = e² ≈ 7.4: samples leave [−2, 2]
    policy = ppo_policy(actor, n_state=3)
    env = ClipActionEnv(PendulumEnv(seed=0))
    env.reset()
    actions = np.array([policy(env) for _ in range(50)])
    assert actions.shape == (50, 1) and np.abs(actions).max() > 2.0
    env(actions[0])  # the env clips
    with testmode(policy):
        mean = actor.net(torch.as_tensor(env.state())[None]).detach().numpy()[0]
        np.testing.assert_allclose(policy(env), mean, rtol=1e-6)


def test_scalars_of_an_actor_policy():
    policy = ppo_policy(CategoricalActor(4, 2, seed=0))
    assert scalars(policy) == {"train/learning_rate": 0.001}


def test_orthogonal_initialisation_gains():
    actor = CategoricalActor(4, 2, hidden=(64, 64), seed=0)
    hidden, output = actor.net[0].weight, actor.net[-1].weight
    # orthogonal rows scaled by the gain: W Wᵀ = gain² I for a wide-enough layer
    torch.testing.assert_close(output @ output.T, 0.01 ** 2 * torch.eye(2), atol=1e-7, rtol=0)
    torch.testing.assert_close(hidden.T @ hidden, 2.0 * torch.eye(4), atol=1e-5, rtol=0)
    assert torch.count_nonzero(actor.net[0].bias) == 0
    same = CategoricalActor(4, 2, hidden=(64, 64), seed=0)
    assert torch.equal(same.net[0].weight, hidden)


def test_bounded_actors_stay_in_their_box():
    x = torch.randn(256, 3) * 10
    deterministic = DeterministicActor(3, [-2.0, 0.0], [2.0, 1.0], seed=0)(x)
    assert deterministic.shape == (256, 2)
    assert (deterministic[:, 0].abs() <= 2).all() and (deterministic[:, 1] >= 0).all()
    squashed = TanhGaussianActor(3, [-2.0], [2.0], seed=0)(x)
    assert squashed.sample(torch.Generator().manual_seed(0)).abs().max() <= 2.0
    assert QCritic(3, 2, seed=0)(x, deterministic).shape == (256,)
    with pytest.raises(ValueError, match="finite"):
        DeterministicActor(3, [-np.inf], [1.0])


def test_a_shared_normaliser_body_feeds_actor_and_critic():
    normalizer = ObservationNormalizer((4,))
    model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1), body=normalizer)
    normalizer.update(np.random.default_rng(0).normal(5.0, 3.0, size=(1000, 4)))
    x = torch.full((1, 4), 5.0)
    dist, value = model.forward_both(x)
    torch.testing.assert_close(value, model.critic(normalizer(x)))
    assert "body.mean" in model.state_dict()


def test_clip_action_env_clips_and_refuses_bad_actions():
    clipped, plain = ClipActionEnv(PendulumEnv(seed=0)), PendulumEnv(seed=0)
    assert not clipped.action_space().is_bounded()
    clipped.reset()
    plain.reset()
    clipped(np.array([100.0], np.float32))
    plain(np.array([2.0], np.float32))  # what the clipped env sent
    assert clipped.reward() == plain.reward()
    np.testing.assert_array_equal(clipped.state(), plain.state())
    with pytest.raises(ValueError, match="without NaN"):
        clipped(np.array([np.nan], np.float32))
    with pytest.raises(TypeError, match="Box action space"):
        ClipActionEnv(CartPoleEnv())


def test_a_noise_explorer_acts_for_a_deterministic_actor():
    actor = DeterministicActor(3, [-2.0], [2.0], seed=0)
    explorer = GaussianNoiseExplorer(low=[-2.0], high=[2.0], seed=0)
    with torch.no_grad():
        actions = explorer(actor(torch.zeros(4, 3)))
    assert actions.shape == (4, 1) and np.abs(actions).max() <= 2.0


def _ppo_agent(actor, n_state, env, **trajectory):
    from rlcore import Agent, CircularArraySARTSTrajectory, RolloutSchedule

    model = ActorCritic(actor, ValueCritic(n_state, seed=1))
    learner = PPOLearner(NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters())),
                         schedule=RolloutSchedule(8))
    space = env.state_space()
    return Agent(ActorPolicy(learner, DistributionExplorer(seed=0)),
                 CircularArraySARTSTrajectory(8, state=(space.shape, space.dtype), **trajectory))


@pytest.mark.parametrize("case, message", [
    ("bounded", "wrap the env in rlenvs.ClipActionEnv"),
    ("n_actions", "3 actions"),
    ("gaussian_on_discrete", "Gaussian actor gives actions of shape"),
])
def test_the_actor_is_checked_against_the_env_before_the_first_step(case, message):
    from rlcore import EnvMismatchError, StopAfterStep, run

    if case == "bounded":
        env, agent = PendulumEnv(seed=0), None
        agent = _ppo_agent(GaussianActor(3, 1, seed=0), 3, env, action=((1,), np.float32))
    elif case == "n_actions":
        env = CartPoleEnv(seed=0)
        agent = _ppo_agent(CategoricalActor(4, 3, seed=0), 4, env)
    else:
        env = CartPoleEnv(seed=0)
        agent = _ppo_agent(GaussianActor(4, 1, seed=0), 4, env)
    with pytest.raises(EnvMismatchError, match=message):
        run(agent, env, StopAfterStep(1))
