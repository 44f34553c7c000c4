"""PPOLearner: the clipped loss and the rollout's advantages by hand, the epochs, KL stop and
annealing, legal-action masks, learning on CartPole and Pendulum, exact resume, CPU against
GPU."""

import math

import numpy as np
import pytest
import torch
from gymnasium import spaces

from rlcore import (
    FULL_ACTION_SET, AbstractEnv, Agent, Checkpoint, CircularArraySARTSTrajectory,
    DistributionExplorer, EvaluateEveryNStep, NeuralNetworkApproximator, RolloutSchedule,
    StopAfterStep, TotalRewardPerEpisode, run, update,
)
from rlcore.trajectories import Batch
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.policy_gradient import (
    ActorCritic, ActorPolicy, CategoricalActor, PPOLearner, ValueCritic,
)
from rlzoo.policy_gradient.distributions import Categorical
from rlzoo.policy_gradient.ppo import ppo_loss
from rlzoo.policy_gradient.rollout import rollout_advantages
from tests.rlzoo.policy_gradient.tiny_models import StateValue, UniformActor
from tests.rlcore.test_checkpoint import run_python


def tiny_learner(**kwargs):
    model = ActorCritic(UniformActor(), StateValue())
    return PPOLearner(NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(),
                                                                       lr=0.1)), **kwargs)


def test_clipped_loss_by_hand():
    learner = tiny_learner(normalize_advantages=False, value_coef=0.5, entropy_coef=0.1)
    dist = Categorical(torch.zeros(2, 2))  # π = ½ for both actions
    batch = {"action": torch.tensor([0, 1]), "log_prob": torch.log(torch.tensor([0.25, 0.5])),
             "advantage": torch.tensor([1.0, -2.0]), "return": torch.tensor([2.0, 0.0]),
             "value": torch.tensor([0.0, 0.0])}
    values = torch.tensor([1.0, 0.0])
    loss, policy_loss, value_loss, entropy, _ = ppo_loss(learner, dist, values, batch, 0.2)
    # ratios ½/¼ = 2 and 1: min(2 · 1, 1.2 · 1) = 1.2, min(−2, −2) = −2 -> −mean = 0.4
    assert policy_loss.item() == pytest.approx(0.4)
    # ½ mean((1 − 2)², 0²) = 0.25; entropy of a fair coin log 2
    assert value_loss.item() == pytest.approx(0.25)
    assert entropy.item() == pytest.approx(math.log(2))
    assert loss.item() == pytest.approx(0.4 + 0.5 * 0.25 - 0.1 * math.log(2))
    learner.value_clip = 0.5  # V = 1 moves 1 from the old 0: clipped to 0.5, error (0.5 − 2)²
    _, _, clipped, _, _ = ppo_loss(learner, dist, values, batch, 0.2)
    assert clipped.item() == pytest.approx(0.5 * (2.25 + 0.0) / 2)


def _rollout(terminal, truncated):
    # one env, 2 steps: states 1, 2; next states 2, 10; rewards 1, 1 (time-major (2, 1))
    return Batch(state=np.array([[[1.0]], [[2.0]]], np.float32), action=np.array([[0], [1]]),
                 reward=np.array([[1.0], [1.0]], np.float32),
                 terminal=np.array([[False], [terminal]]),
                 truncated=np.array([[False], [truncated]]),
                 next_state=np.array([[[2.0]], [[10.0]]], np.float32))


def test_a_truncated_step_bootstraps_from_its_final_state_and_a_terminal_does_not():
    learner = tiny_learner(gamma=0.5, lam=1.0)
    truncated = rollout_advantages(learner, _rollout(terminal=False, truncated=True))
    # δ₁ = 1 + 0.5 · V(10) − V(2) = 4, A₁ = 4; δ₀ = 1 + 0.5 · 2 − 1 = 1, A₀ = 1 + 0.5 · 4 = 3
    torch.testing.assert_close(truncated["advantage"], torch.tensor([3.0, 4.0]))
    torch.testing.assert_close(truncated["return"], torch.tensor([4.0, 6.0]))
    torch.testing.assert_close(truncated["log_prob"], torch.log(torch.tensor([0.5, 0.5])))
    terminal = rollout_advantages(learner, _rollout(terminal=True, truncated=False))
    # δ₁ = 1 − V(2) = −1; A₀ = 1 + 0.5 · (−1) = 0.5
    torch.testing.assert_close(terminal["advantage"], torch.tensor([0.5, -1.0]))


def test_one_update_takes_epochs_times_minibatches_steps():
    learner = tiny_learner(n_epochs=3, n_minibatches=2, gamma=0.5, lam=1.0,
                           normalize_advantages=False)
    steps = []
    optimizer = learner.approximator.optimizer
    optimizer.register_step_post_hook(lambda *args: steps.append(1))
    update(learner, _rollout(terminal=False, truncated=True))
    assert len(steps) == 6 and learner.epochs_run == 3
    # the critic moved towards the returns 4 and 6 from V = 1 and 2: w grew
    assert learner.approximator.model.critic.w.item() > 1.0


def test_target_kl_stops_the_epochs():
    learner = tiny_learner(n_epochs=50, n_minibatches=1, target_kl=1e-4, gamma=0.5, lam=1.0,
                           normalize_advantages=False)
    update(learner, _rollout(terminal=False, truncated=True))
    assert learner.epochs_run < 50 and learner.approx_kl.item() > 1e-4


def test_annealing_decays_learning_rate_and_clip_range_linearly():
    learner = tiny_learner(anneal_rollouts=4, clip_range=0.2)
    rates, clips = [], []
    for _ in range(4):
        learner.schedule.rollouts += 1  # as RolloutSchedule.rollout counts
        clips.append(learner.current_clip_range)
        rates.append(learner.approximator.optimizer.param_groups[0]["lr"])
        update(learner, _rollout(terminal=False, truncated=True))
    assert rates == pytest.approx([0.1, 0.075, 0.05, 0.025])
    assert clips == pytest.approx([0.2, 0.15, 0.1, 0.05])


def test_a_trajectory_too_small_for_a_rollout_fails_before_the_first_step():
    experiment = registry.make("PPO_CartPole", 0, n_envs=1, n_steps=16)
    experiment.policy.trajectory = type(experiment.policy.trajectory)(8, n_envs=1)
    with pytest.raises(ValueError, match="n_steps · n_envs = 16 · 1 = 16"):
        run(experiment)


def test_ppo_learns_from_one_env_as_well(one_thread):
    experiment = registry.make("PPO_CartPole", 0, n_envs=1, n_steps=128, steps=4096,
                               eval_every=4096, eval_episodes=2)
    run(experiment)
    assert experiment.policy.policy.learner.schedule.rollouts == 32


@pytest.mark.slow
@pytest.mark.parametrize("name, threshold, budget", [("PPO_CartPole", 475, 100_000),
                                                     ("PPO_Pendulum", -250, 60_000)])
def test_ppo_experiment_learns(name, threshold, budget, one_thread):
    assert registry.parameters(name)["steps"] <= budget
    hook = run(registry.make(name, seed=0, stop_at=threshold))
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.n_episodes == 10 and evaluation.t <= budget
    assert max(evaluation.returns) >= threshold, (name, evaluation.steps, evaluation.returns)


RESUME_PPO = """
    import sys, torch
    from rlcore import load, resume
    torch.set_num_threads(1)
    experiment = load(sys.argv[2])
    resume(experiment)
    model = experiment.policy.policy.learner.approximator.model
    torch.save({"params": [p.detach() for p in model.parameters()],
                "returns": [float(r) for r in experiment.hook[0].rewards]}, sys.argv[1])
"""


def test_ppo_resume_in_a_fresh_process_is_bit_identical(tmp_path, one_thread):
    def experiment(directory):
        # one env (a vectorised run cannot be resumed); a checkpoint mid-rollout and
        # mid-episode, with the normalisers' and the annealing's state
        ex = registry.make("PPO_Pendulum", 0, n_envs=1, n_steps=256, steps=2000,
                           eval_every=10_000, anneal=True)
        ex.hook = ex.hook + Checkpoint(tmp_path / directory, every=1000, keep=3)
        return ex

    straight = experiment("straight")
    run(straight)
    model = straight.policy.policy.learner.approximator.model
    checkpoint = tmp_path / "straight" / "checkpoint-000001000.pt"
    assert torch.load(checkpoint, weights_only=True)["saved_at"]["step"] == 1000
    out = tmp_path / "resumed.pt"
    run_python(RESUME_PPO, out, checkpoint)
    resumed = torch.load(out, weights_only=True)
    assert resumed["returns"] == straight.hook[0].rewards
    assert all(torch.equal(a, b.detach()) for a, b in zip(resumed["params"], model.parameters()))
    assert straight.policy.policy.learner.schedule.rollouts == 7  # 2,000 // 256


def _one_update(device):
    torch.manual_seed(0)
    model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    learner = PPOLearner(NeuralNetworkApproximator(
        model, torch.optim.Adam(model.parameters(), lr=1e-3), device=device),
        schedule=RolloutSchedule(8), n_minibatches=2, seed=0)
    rng = np.random.default_rng(0)
    rollout = Batch(state=rng.normal(size=(8, 2, 4)).astype(np.float32),
                    action=rng.integers(2, size=(8, 2)),
                    reward=rng.normal(size=(8, 2)).astype(np.float32),
                    terminal=rng.random((8, 2)) < 0.1, truncated=rng.random((8, 2)) < 0.1,
                    next_state=rng.normal(size=(8, 2, 4)).astype(np.float32))
    update(learner, rollout)
    return [p.detach().cpu() for p in model.parameters()]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_one_ppo_update_on_gpu_matches_cpu():
    for a, b in zip(_one_update("cpu"), _one_update("cuda")):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4)


class PickEnv(AbstractEnv):
    """Five steps per episode; the state is the one-hot of a target action out of 3, reward 1
    for picking it. The legal actions change: one of the two wrong actions is illegal at each
    step (FULL_ACTION_SET); an illegal action raises."""

    ActionStyle = FULL_ACTION_SET

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.reset()

    def reset(self):
        self.t, self.last_reward = 0, 0.0
        self._draw()

    def _draw(self):
        self.target = int(self.rng.integers(3))
        self.illegal = (self.target + 1 + int(self.rng.integers(2))) % 3

    def __call__(self, action):
        self.check_action(action)
        self.last_reward = float(action == self.target)
        self.t += 1
        self._draw()

    def state(self, player=None):
        return np.eye(3, dtype=np.float32)[self.target]

    def reward(self, player=None):
        return self.last_reward

    def is_terminated(self):
        return self.t >= 5

    def action_space(self, player=None):
        return spaces.Discrete(3)

    def legal_action_space(self, player=None):
        return [a for a in range(3) if a != self.illegal]

    def legal_action_space_mask(self, player=None):
        mask = np.ones(3, bool)
        mask[self.illegal] = False
        return mask

    def state_space(self, player=None):
        return spaces.Box(0.0, 1.0, (3,), np.float32)


def test_ppo_acts_and_learns_with_the_legal_actions_of_each_step(one_thread):
    model = ActorCritic(CategoricalActor(3, 3, seed=0), ValueCritic(3, seed=1))
    learner = PPOLearner(NeuralNetworkApproximator(model, torch.optim.Adam(
        model.parameters(), lr=1e-2)), schedule=RolloutSchedule(50), seed=0)
    trajectory = CircularArraySARTSTrajectory(50, state=((3,), np.float32),
                                              legal_actions_mask=((3,), bool))
    agent = Agent(ActorPolicy(learner, DistributionExplorer(seed=0)), trajectory)
    hook = run(agent, PickEnv(seed=0), StopAfterStep(3000), TotalRewardPerEpisode())
    # PickEnv raises on an illegal action, so 600 episodes ran with legal actions only; the
    # probability of an illegal action is exactly 0 under the mask
    env = PickEnv(seed=1)
    dist = learner(env)
    assert dist.probs[0, env.illegal].item() == 0.0
    assert np.mean(hook.rewards[-50:]) >= 4.5  # of 5: the target is picked


def test_an_env_whose_legal_actions_change_needs_a_trajectory_that_records_them():
    from rlcore import EnvMismatchError

    model = ActorCritic(CategoricalActor(3, 3, seed=0), ValueCritic(3, seed=1))
    learner = PPOLearner(NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters())),
                         schedule=RolloutSchedule(50))
    agent = Agent(ActorPolicy(learner, DistributionExplorer(seed=0)),
                  CircularArraySARTSTrajectory(50, state=((3,), np.float32)))
    with pytest.raises(EnvMismatchError, match=r"legal_actions_mask=\(\(3,\), bool\)"):
        run(agent, PickEnv(seed=0), StopAfterStep(1))
