"""VPGLearner: one episode's returns, loss and SGD step by hand; the truncation bootstrap; the
episode search in a wrapped ring of several environments; one update per finished episode with
one env and a vector env; the checks before the first step; learning on CartPole."""

import math

import numpy as np
import pytest
import torch

from rlcore import (
    POST_EPISODE_STAGE, CircularArraySARTSTrajectory, CircularArraySARTTrajectory,
    DoEveryNEpisode, EnvMismatchError, EvaluateEveryNStep, NeuralNetworkApproximator,
    StepsPerEpisode, run, update,
)
from rlzoo.experiments import registry
from rlzoo.experiments.common import find_hook
from rlzoo.policy_gradient import ActorCritic, CategoricalActor
from rlzoo.policy_gradient.vpg import VPGLearner, episode_rows
from tests.rlzoo.policy_gradient.tiny_models import StateValue, UniformActor
from tests.helpers import LineEnv

LOG2 = math.log(2)


def tiny_learner(**kwargs):
    model = ActorCritic(UniformActor(), StateValue())
    kwargs.setdefault("gamma", 0.5)
    return VPGLearner(NeuralNetworkApproximator(model, torch.optim.SGD(model.parameters(),
                                                                       lr=0.1)), **kwargs)


def _push(t, state, action, reward, next_state, terminal=False, truncated=False):
    t.push(state=np.array([state], np.float32), action=action)
    t.push(reward=reward, terminal=terminal, truncated=truncated,
           next_state=np.array([next_state], np.float32))


def episode_trajectory(terminal=True, truncated=False):
    """The end of an earlier episode (state 7, reward 5, terminal), then the episode: states 1
    and 2, actions 0 and 1, rewards 1 and 1, final state 10."""
    t = CircularArraySARTSTrajectory(10, n_envs=1, state=((1,), np.float32))
    _push(t, 7.0, 0, 5.0, 8.0, terminal=True)
    _push(t, 1.0, 0, 1.0, 2.0)
    _push(t, 2.0, 1, 1.0, 10.0, terminal=terminal, truncated=truncated)
    return t


def test_one_episode_by_hand():
    learner = tiny_learner(value_coef=1.0)
    update(learner, episode_trajectory(), LineEnv(), POST_EPISODE_STAGE)
    # G = [1 + 0.5 · 1, 1] = [1.5, 1] (the earlier episode's reward 5 is not in it);
    # V = [1, 2]; Â = G − V = [0.5, −1]
    # policy loss −mean(log ½ · Â) = log 2 · mean(Â) = −0.25 log 2
    assert learner.policy_loss.item() == pytest.approx(-0.25 * LOG2)
    # value loss ½ mean((1.5 − 1)², (1 − 2)²) = ½ · 1.25 / 2 = 0.3125
    assert learner.value_loss.item() == pytest.approx(0.3125)
    assert learner.entropy.item() == pytest.approx(LOG2)
    assert learner.loss_value.item() == pytest.approx(-0.25 * LOG2 + 0.3125)
    assert learner.episode_length == 2
    model = learner.approximator.model
    # d value loss / dw = mean((V − G) · s) = ((1 − 1.5) · 1 + (2 − 1) · 2) / 2 = 0.75;
    # SGD lr 0.1 -> w = 1 − 0.075
    assert model.critic.w.item() == pytest.approx(0.925)
    # d(−log π(a) Â)/d bias = −Â (onehot(a) − π): step 0 −0.5 (½, −½), step 1 +1 (−½, ½);
    # mean (−0.375, 0.375); SGD lr 0.1 -> bias = (0.0375, −0.0375)
    torch.testing.assert_close(model.actor.bias.detach(), torch.tensor([0.0375, -0.0375]))


def test_a_truncated_episode_bootstraps_from_its_final_state_with_a_baseline_only():
    learner = tiny_learner()
    update(learner, episode_trajectory(terminal=False, truncated=True), LineEnv(),
           POST_EPISODE_STAGE)
    # G₁ = 1 + 0.5 · V(10) = 6, G₀ = 1 + 0.5 · 6 = 4; Â = G − V = [3, 4]
    assert learner.policy_loss.item() == pytest.approx(3.5 * LOG2)
    assert learner.value_loss.item() == pytest.approx(0.5 * (9 + 16) / 2)
    no_baseline = tiny_learner(baseline=False)
    update(no_baseline, episode_trajectory(terminal=False, truncated=True), LineEnv(),
           POST_EPISODE_STAGE)
    # nothing estimates V(10): G = [1.5, 1], as if terminal; policy loss log 2 · mean(G)
    assert no_baseline.policy_loss.item() == pytest.approx(1.25 * LOG2)
    assert no_baseline.value_loss is None
    assert no_baseline.approximator.model.critic.w.item() == 1.0  # the critic is not trained


def test_normalized_advantages_and_entropy_bonus():
    learner = tiny_learner(normalize_advantages=True, entropy_coef=0.1)
    update(learner, episode_trajectory(), LineEnv(), POST_EPISODE_STAGE)
    # Â = [0.5, −1] normalised: mean −0.25, sample std √(2 · 0.75²) = 1.0607 -> [0.7071,
    # −0.7071]; −mean(log ½ · Â) = 0
    assert learner.policy_loss.item() == pytest.approx(0.0, abs=1e-6)
    assert learner.loss_value.item() == pytest.approx(0.3125 - 0.1 * LOG2)


def _stream(n_envs, capacity, lengths, n_steps):
    """Step ``n_envs`` synthetic envs for ``n_steps`` steps; env ``i`` has episodes of
    ``lengths[i]`` steps; state ``1000 i + 100 k + t`` (episode ``k``, step ``t``). After each
    step yield ``(trajectory, i, expected states)`` for each env whose episode ended."""
    t = CircularArraySARTSTrajectory(capacity, n_envs=n_envs, state=((), np.int64))
    episode, step_in = [0] * n_envs, [0] * n_envs
    for _ in range(n_steps):
        states = [1000 * i + 100 * episode[i] + step_in[i] for i in range(n_envs)]
        ended = [step_in[i] + 1 == lengths[i] for i in range(n_envs)]
        t.extend(state=states, action=[0] * n_envs)
        t.extend(reward=[1.0] * n_envs, terminal=ended, truncated=[False] * n_envs,
                 next_state=[s + 1 for s in states])
        for i in range(n_envs):
            if ended[i]:
                yield t, i, [1000 * i + 100 * episode[i] + k for k in range(lengths[i])]
                episode[i], step_in[i] = episode[i] + 1, 0
            else:
                step_in[i] += 1


def test_episode_rows_after_the_ring_has_wrapped_many_times():
    # 3 envs, 20 rows: 6 or 7 per env, and where each env's rows lie moves as the ring wraps
    # (20 is not a multiple of 3); episodes of 2, 3 and 5 steps fit with the row before them.
    found = 0
    for t, i, expected in _stream(3, 20, lengths=(2, 3, 5), n_steps=60):
        assert t["state"][episode_rows(t, i)].tolist() == expected
        found += 1
    assert found == 30 + 20 + 12
    assert t.traces["reward"].first_index == 160  # 180 rows pushed, the newest 20 held


def test_the_first_episode_may_fill_the_column_until_the_ring_wraps():
    # 2 envs, 6 rows: 3 steps each; env 0's first episode of 3 steps fills its column
    stream = _stream(2, 6, lengths=(3, 5), n_steps=3)
    t, i, expected = next(stream)
    assert i == 0 and t["state"][episode_rows(t, 0)].tolist() == expected == [0, 1, 2]


def test_an_episode_longer_than_the_trajectory_holds_per_env_raises():
    # 2 envs, 9 rows (4 or 5 per env): env 0's episodes of 2 steps fit, env 1's of 6 do not
    stream = _stream(2, 9, lengths=(2, 6), n_steps=6)
    # at step 6, 12 rows pushed: the newest 9 hold 5 rows of env 1, steps 2 to 6 of its episode
    with pytest.raises(ValueError, match=r"the episode env 1 just ended has at least 5 steps, "
                                         r"every row of env 1 the trajectory holds \(capacity "
                                         r"9 for 2 envs: 4 to 5 rows per env\)"):
        for t, i, expected in stream:
            assert t["state"][episode_rows(t, i)].tolist() == expected


def test_an_episode_without_the_row_before_it_raises_once_the_ring_has_wrapped():
    # 1 env, 3 rows: an episode of 3 steps after the first one fits but its start is unknown
    stream = _stream(1, 3, lengths=(3,), n_steps=6)
    t, _, expected = next(stream)
    assert t["state"][episode_rows(t, 0)].tolist() == expected
    t, _, _ = next(stream)
    with pytest.raises(ValueError, match="at least 3 steps"):
        episode_rows(t, 0)


def test_the_newest_row_must_end_an_episode():
    t = CircularArraySARTSTrajectory(10, n_envs=1, state=((1,), np.float32))
    _push(t, 1.0, 0, 1.0, 2.0)
    with pytest.raises(ValueError, match="neither terminal nor truncated"):
        episode_rows(t, 0)


@pytest.mark.parametrize("n_envs", [1, 4])
def test_one_update_per_finished_episode_from_its_own_rows(n_envs, one_thread):
    experiment = registry.make("VPG_CartPole", 0, n_envs=n_envs, steps=2000, eval_every=2000,
                               eval_episodes=1)
    learner = experiment.policy.policy.learner
    lengths, steps = [], StepsPerEpisode()
    experiment.hook = experiment.hook + steps + DoEveryNEpisode(
        lambda t, policy, env: lengths.append(learner.episode_length))
    run(experiment)
    # the learner found each episode's rows: as many as the env stepped, episode by episode
    # (in a vector env PostEpisodeStage fires once per sub-env that ended, the policy first)
    assert len(lengths) > 20 and lengths == steps.steps
    model = learner.approximator.model
    first = next(model.parameters())
    assert int(learner.approximator.optimizer.state[first]["step"]) == len(lengths)


def test_the_trajectory_is_checked_before_the_first_step():
    experiment = registry.make("VPG_CartPole", 0, n_envs=1)
    experiment.policy.trajectory = CircularArraySARTTrajectory(1000, state=((4,), np.float32))
    with pytest.raises(TypeError, match="VPGLearner finds its episodes in a "
                                        "CircularArraySARTSTrajectory"):
        run(experiment)
    experiment = registry.make("VPG_CartPole", 0, n_envs=2)
    experiment.policy.trajectory = CircularArraySARTSTrajectory(1000, n_envs=3)
    with pytest.raises(EnvMismatchError, match="n_envs=3"):
        run(experiment)


def test_a_baseline_needs_an_actor_critic():
    actor = CategoricalActor(4, 2, seed=0)
    app = NeuralNetworkApproximator(actor, torch.optim.Adam(actor.parameters(), lr=1e-3))
    with pytest.raises(TypeError, match=r"VPGLearner\(baseline=True\) needs an ActorCritic"):
        VPGLearner(app)
    actor = UniformActor()  # an actor alone is enough without one
    learner = VPGLearner(NeuralNetworkApproximator(actor, torch.optim.SGD(
        actor.parameters(), lr=0.1)), gamma=0.5, baseline=False)
    update(learner, episode_trajectory(), LineEnv(), POST_EPISODE_STAGE)
    # G = [1.5, 1]: policy loss log 2 · mean(G)
    assert learner.policy_loss.item() == pytest.approx(1.25 * LOG2)


@pytest.mark.slow
@pytest.mark.parametrize("n_envs", [4, 1])
def test_vpg_cartpole_reaches_195(n_envs, one_thread):
    assert registry.parameters("VPG_CartPole")["steps"] <= 100_000
    hook = run(registry.make("VPG_CartPole", seed=0, n_envs=n_envs, stop_at=195))
    evaluation = find_hook(hook, EvaluateEveryNStep)
    assert evaluation.n_episodes == 10 and evaluation.t <= 100_000
    assert max(evaluation.returns) >= 195, (n_envs, evaluation.steps, evaluation.returns)
