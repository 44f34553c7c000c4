"""A2CLearner: the n-step returns, the loss and one SGD step by hand; episode boundaries and the
truncation bootstrap; GAE with λ = 1 against a direct loop over n-step returns; one optimiser
step per rollout with one env and a vector env; learning on CartPole."""

import math

import numpy as np
import pytest
import torch

from rlcore import EvaluateEveryNStep, NeuralNetworkApproximator, RolloutSchedule, run, update
from rlcore.trajectories import Batch
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.policy_gradient import ActorCritic, CategoricalActor, ValueCritic
from rlzoo.policy_gradient.a2c import A2CLearner
from rlzoo.policy_gradient.rollout import rollout_advantages
from tests.rlzoo.policy_gradient.test_vpg import StateValue, UniformActor

LOG2 = math.log(2)


def tiny_learner(**kwargs):
    model = ActorCritic(UniformActor(), StateValue())
    kwargs.setdefault("gamma", 0.5)
    return A2CLearner(NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(),
                                                                       lr=0.1)), **kwargs)


def two_steps(terminal=(False, False), truncated=(False, False), next_states=(2.0, 10.0)):
    """One env, 2 steps (time-major (2, 1)): states 1, 2; actions 0, 1; rewards 1, 1."""
    return Batch(state=np.array([[[1.0]], [[2.0]]], np.float32), action=np.array([[0], [1]]),
                 reward=np.array([[1.0], [1.0]], np.float32),
                 terminal=np.array([[terminal[0]], [terminal[1]]]),
                 truncated=np.array([[truncated[0]], [truncated[1]]]),
                 next_state=np.array([[[next_states[0]]], [[next_states[1]]]], np.float32))


def test_one_update_by_hand():
    learner = tiny_learner(value_coef=0.5, entropy_coef=0.1)
    update(learner, two_steps())
    # R₁ = 1 + 0.5 · V(10) = 6, R₀ = 1 + 0.5 · 6 = 4; V = [1, 2]; A = R − V = [3, 4]
    # policy loss −mean(log ½ · A) = 3.5 log 2; value loss ½ mean(3², 4²) = 6.25
    assert learner.policy_loss.item() == pytest.approx(3.5 * LOG2)
    assert learner.value_loss.item() == pytest.approx(6.25)
    assert learner.entropy.item() == pytest.approx(LOG2)
    assert learner.loss_value.item() == pytest.approx(3.5 * LOG2 + 0.5 * 6.25 - 0.1 * LOG2)
    model = learner.approximator.model
    # d/dw: 0.5 · mean((V − R) · s) = 0.5 · ((1 − 4) · 1 + (2 − 6) · 2) / 2 = −2.75;
    # SGD lr 0.1 -> w = 1.275
    assert model.critic.w.item() == pytest.approx(1.275)
    # d(−log π(a) A)/d bias = −A (onehot(a) − π): step 0 −3 (½, −½), step 1 −4 (−½, ½);
    # mean (0.25, −0.25); the entropy's gradient is 0 at π = ½; SGD lr 0.1 -> (−0.025, 0.025)
    torch.testing.assert_close(model.actor.bias.detach(), torch.tensor([-0.025, 0.025]))


def test_episode_boundaries_cut_the_returns():
    learner = tiny_learner()
    # step 0 truncated with true final state 5: R₀ = 1 + 0.5 · V(5) = 3.5 (not through step 1)
    truncated = rollout_advantages(learner, two_steps(truncated=(True, False),
                                                      next_states=(5.0, 10.0)))
    torch.testing.assert_close(truncated["return"], torch.tensor([3.5, 6.0]))
    torch.testing.assert_close(truncated["advantage"], torch.tensor([2.5, 4.0]))
    # step 0 terminal: R₀ = 1
    terminal = rollout_advantages(learner, two_steps(terminal=(True, False),
                                                     next_states=(5.0, 10.0)))
    torch.testing.assert_close(terminal["return"], torch.tensor([1.0, 6.0]))
    # the last step terminal: R₁ = 1, R₀ = 1 + 0.5 · 1 = 1.5
    last = rollout_advantages(learner, two_steps(terminal=(False, True)))
    torch.testing.assert_close(last["return"], torch.tensor([1.5, 1.0]))


def n_step_returns(rewards, terminal, truncated, next_values, gamma):
    """R_t by the definition, one step at a time (T, n numpy arrays)."""
    steps, n = rewards.shape
    returns = np.zeros((steps, n))
    for i in range(n):
        for t in range(steps):
            total, discount = 0.0, 1.0
            for k in range(t, steps):
                total += discount * rewards[k, i]
                discount *= gamma
                if terminal[k, i]:
                    break
                if truncated[k, i] or k == steps - 1:
                    total += discount * next_values[k, i]
                    break
            returns[t, i] = total
    return returns


def test_gae_with_lambda_one_gives_the_n_step_returns():
    # a random rollout of 3 envs as a run records it: inside an episode a step's state is the
    # previous step's next state; after a boundary it is the next episode's first state
    rng = np.random.default_rng(0)
    steps, n = 6, 3
    terminal = rng.random((steps, n)) < 0.2
    truncated = (rng.random((steps, n)) < 0.2) & ~terminal
    next_state = rng.normal(size=(steps, n, 4)).astype(np.float32)
    state = rng.normal(size=(steps, n, 4)).astype(np.float32)
    going_on = ~(terminal | truncated)[:-1]
    state[1:][going_on] = next_state[:-1][going_on]
    rollout = Batch(state=state, action=rng.integers(2, size=(steps, n)),
                    reward=rng.normal(size=(steps, n)).astype(np.float32), terminal=terminal,
                    truncated=truncated, next_state=next_state)
    assert terminal.any() and truncated.any()
    model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    learner = A2CLearner(NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters())),
                         gamma=0.9)
    samples = rollout_advantages(learner, rollout)
    with torch.no_grad():
        next_values = model.value(torch.as_tensor(rollout["next_state"])).numpy()
        values = model.value(torch.as_tensor(rollout["state"])).numpy()
    expected = n_step_returns(rollout["reward"], rollout["terminal"], rollout["truncated"],
                              next_values, 0.9)
    np.testing.assert_allclose(samples["return"].view(steps, n).numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(samples["advantage"].view(steps, n).numpy(), expected - values,
                               atol=1e-5)


@pytest.mark.parametrize("n_envs", [1, 4])
def test_one_optimiser_step_per_rollout(n_envs, one_thread):
    experiment = registry.make("A2C_CartPole", 0, n_envs=n_envs, n_steps=5, steps=400,
                               eval_every=400, eval_episodes=1)
    run(experiment)
    learner = experiment.policy.policy.learner
    first = next(learner.approximator.model.parameters())
    assert int(learner.approximator.optimizer.state[first]["step"]) == 400 // (5 * n_envs)
    assert learner.schedule.rollouts == 400 // (5 * n_envs)


def test_validation_names_the_value():
    model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    app = NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters()))
    with pytest.raises(ValueError, match=r"gamma must be a real number in \[0, 1\], got 1.5"):
        A2CLearner(app, gamma=1.5)
    with pytest.raises(TypeError, match="schedule"):
        A2CLearner(app, schedule=5)
    assert A2CLearner(app, schedule=RolloutSchedule(5)).lam == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("n_envs", [8, 1])
def test_a2c_cartpole_reaches_475(n_envs, one_thread):
    assert registry.parameters("A2C_CartPole")["steps"] <= 100_000
    hook = run(registry.make("A2C_CartPole", seed=0, n_envs=n_envs, stop_at=475))
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.n_episodes == 10 and evaluation.t <= 100_000
    assert max(evaluation.returns) >= 475, (n_envs, evaluation.steps, evaluation.returns)
