"""Bandit methods: hand-checked updates, and Figure 2.2/2.4/2.5 orderings over 2,000 runs."""

import numpy as np
import pytest

from rlcore import (
    Agent, EpsilonGreedyExplorer, Experiment, QBasedPolicy, RewardsPerEpisode, StopAfterStep,
    UCBExplorer, run,
)
from rlcore.dispatch import update
from rlcore.stages import PostActStage
from rlcore.trajectories import VectorSARTTrajectory
from rlenvs.multi_arm_bandits import BatchMultiArmBanditsEnv, MultiArmBanditsEnv
from rlzoo.tabular.bandits import (
    BanditLearner, BatchEpsilonGreedyExplorer, BatchQBasedPolicy, BatchSoftmaxExplorer,
    BatchUCBExplorer, GradientBanditLearner, OptimalActionRate, bandit_trajectory,
)
from rlzoo.tabular.runner import run_many


def test_sample_average_and_constant_step_updates():
    env = MultiArmBanditsEnv(k=3, true_values=[0.0, 0.0, 0.0], seed=0)
    learner = BanditLearner(n_actions=3)
    agent = Agent(QBasedPolicy(learner, EpsilonGreedyExplorer(epsilon_stable=1.0, seed=0)),
                  VectorSARTTrajectory())
    hook = run(agent, env, StopAfterStep(200), RewardsPerEpisode())
    actions = np.array(agent.trajectory["action"][:200])
    rewards = np.array(hook.rewards[0])
    for a in range(3):  # sample averages are exactly the means of each arm's rewards
        assert learner.Q[0, a] == pytest.approx(rewards[actions == a].mean())
        assert learner.N[0, a] == (actions == a).sum()
    constant = BanditLearner(n_actions=2, alpha=0.5, init=5.0)
    env = MultiArmBanditsEnv(k=2, true_values=[1.0, 0.0], seed=0)
    agent = Agent(QBasedPolicy(constant, EpsilonGreedyExplorer(epsilon_stable=0.0, seed=0)),
                  VectorSARTTrajectory())
    run(agent, env, StopAfterStep(1))
    a, r = agent.trajectory["action"][0], agent.trajectory["reward"][0]
    assert constant.Q[0, a] == pytest.approx(5.0 + 0.5 * (r - 5.0))  # optimistic start


def test_gradient_bandit_update_by_hand():
    learner = GradientBanditLearner(n_actions=3, alpha=0.1, baseline=True)
    env = MultiArmBanditsEnv(k=3, true_values=[0.0, 1.0, 2.0], seed=0)
    agent = Agent(QBasedPolicy(learner, EpsilonGreedyExplorer(epsilon_stable=1.0, seed=1)),
                  VectorSARTTrajectory())
    run(agent, env, StopAfterStep(1))
    a, r = agent.trajectory["action"][0], agent.trajectory["reward"][0]
    # First step: R̄ = R (this step included), so R − R̄ = 0 and H does not move.
    assert learner.average_reward[0] == pytest.approx(r)
    assert (learner.H == 0).all()
    no_baseline = GradientBanditLearner(n_actions=3, alpha=0.1, baseline=False)
    agent = Agent(QBasedPolicy(no_baseline, EpsilonGreedyExplorer(epsilon_stable=1.0, seed=1)),
                  VectorSARTTrajectory())
    run(agent, MultiArmBanditsEnv(k=3, true_values=[0.0, 1.0, 2.0], seed=0), StopAfterStep(1))
    expected = -0.1 * r / 3 * np.ones(3)
    expected[a] = 0.1 * r * (1 - 1 / 3)
    np.testing.assert_allclose(no_baseline.H[0], expected)


def test_batch_explorers():
    rng = np.random.default_rng(0)
    values = np.array([[0.0, 1.0, 1.0], [2.0, 0.0, 0.0]])
    greedy = BatchEpsilonGreedyExplorer(0.0, rng=rng)
    picks = np.array([greedy(values) for _ in range(200)])
    assert set(picks[:, 0]) == {1, 2} and set(picks[:, 1]) == {0}  # random tie-breaking
    np.testing.assert_allclose(BatchEpsilonGreedyExplorer(0.3).prob(values)[1], [0.8, 0.1, 0.1])
    ucb = BatchUCBExplorer(c=2.0, seed=0)
    first = [ucb(np.zeros((1, 4)))[0] for _ in range(4)]
    assert sorted(first) == [0, 1, 2, 3]  # every untried arm first
    soft = BatchSoftmaxExplorer(seed=0)
    draws = np.array([soft(np.array([[0.0, np.log(3.0)]]))[0] for _ in range(4000)])
    # P(1) = 3/4; the mean of 4,000 draws has std 0.007.
    assert draws.mean() == pytest.approx(0.75, abs=0.03)
    with pytest.raises(ValueError, match="batch"):
        greedy(np.zeros(3))


def _testbed(policy_factory, learner_factory, true_reward=0.0, steps=1000):
    def make(n, rng):
        # The env draws its values from its own seed so every method meets the same bandits
        # (common random numbers: the q* spread cancels out of the comparisons).
        env = BatchMultiArmBanditsEnv(n_envs=n, true_reward=true_reward,
                                      seed=int(rng.integers(2 ** 31)))
        learner = learner_factory(n)
        policy = BatchQBasedPolicy(learner, policy_factory(rng))
        return Experiment(Agent(policy, bandit_trajectory(n)), env, StopAfterStep(steps),
                          RewardsPerEpisode() + OptimalActionRate())
    curve = run_many(make, n_runs=2000, chunk_size=1000, seed=1,
                     curve=lambda hook: np.r_[hook[0].rewards[0], hook[1].rates])
    return curve[:steps], curve[steps:]


def test_figure_2_2_epsilon_ordering():
    results = {eps: _testbed(lambda rng, eps=eps: BatchEpsilonGreedyExplorer(eps, rng=rng),
                             lambda n: BanditLearner(n_actions=10, n_envs=n))
               for eps in (0.0, 0.01, 0.1)}
    reward = {eps: r[500:].mean() for eps, (r, _) in results.items()}
    optimal = {eps: o[500:].mean() for eps, (_, o) in results.items()}
    # Book, steps 500–1000: reward ≈ 1.05 / 1.3 / 1.4, optimal ≈ 35% / 55% / 80%. Over 2,000
    # runs with common bandits the per-run noise of a 500-step average (std ≲ 0.3 for reward,
    # ≲ 0.4 for the optimal fraction) gives standard errors ≲ 0.01: margins of 0.03 are ≥ 3σ.
    assert reward[0.1] > reward[0.01] + 0.03 and reward[0.01] > reward[0.0] + 0.1
    assert optimal[0.1] > optimal[0.01] + 0.1 and optimal[0.01] > optimal[0.0] + 0.1
    assert 1.3 < reward[0.1] < 1.45 and 0.75 < optimal[0.1] < 0.85


def test_figure_2_4_ucb_beats_epsilon_greedy():
    ucb, _ = _testbed(lambda rng: BatchUCBExplorer(c=2.0, rng=rng),
                      lambda n: BanditLearner(n_actions=10, n_envs=n))
    eps, _ = _testbed(lambda rng: BatchEpsilonGreedyExplorer(0.1, rng=rng),
                      lambda n: BanditLearner(n_actions=10, n_envs=n))
    # Book: UCB ≈ 1.5, ε-greedy ≈ 1.35 after 500 steps; standard errors ≈ 0.01 (see above).
    assert ucb[500:].mean() > eps[500:].mean() + 0.05


def test_figure_2_5_gradient_bandit_baseline():
    def softmax(rng):
        return BatchSoftmaxExplorer(rng=rng)
    with_baseline = _testbed(softmax, lambda n: GradientBanditLearner(
        n_actions=10, n_envs=n, alpha=0.1, baseline=True), true_reward=4.0)[1]
    without = _testbed(softmax, lambda n: GradientBanditLearner(
        n_actions=10, n_envs=n, alpha=0.1, baseline=False), true_reward=4.0)[1]
    # Book: ≈ 80% optimal with the baseline, ≈ 40% without, over steps 500–1000; standard
    # errors ≈ 0.01, so a 0.2 margin is far beyond noise.
    assert with_baseline[500:].mean() > without[500:].mean() + 0.2
    assert with_baseline[500:].mean() > 0.7


def test_runner_reproducible_and_validates():
    def make(n, rng):
        env = BatchMultiArmBanditsEnv(n_envs=n, rng=rng)
        policy = BatchQBasedPolicy(BanditLearner(n_actions=10, n_envs=n),
                                   BatchEpsilonGreedyExplorer(0.1, rng=rng))
        return Experiment(Agent(policy, bandit_trajectory(n)), env, StopAfterStep(20),
                          RewardsPerEpisode())
    a = run_many(make, 10, curve=lambda h: h.rewards[0], chunk_size=5, seed=3)
    b = run_many(make, 10, curve=lambda h: h.rewards[0], chunk_size=5, seed=3, n_workers=2)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="n_runs"):
        run_many(make, 0, curve=lambda h: h.rewards[0])
    with pytest.raises(TypeError, match="Experiment"):
        run_many(lambda n, rng: None, 1, curve=lambda h: [0.0])


def test_gradient_bandit_second_step_and_large_alpha():
    # Scripted: two steps on one bandit with actions 0 then 1 and rewards 1 then 3 (α = 2).
    # Step 1: R̄_1 = 1 = R_1, no change. Step 2: R̄_2 = (1 + 3)/2 = 2 (this step included),
    # π = (1/3, 1/3, 1/3), so H(1) += 2·(3 − 2)(1 − 1/3) = 4/3 and H(0), H(2) −= 2·1·(1/3).
    learner = GradientBanditLearner(n_actions=3, alpha=2.0)
    env = MultiArmBanditsEnv(k=3, seed=0)
    trajectory = bandit_trajectory()
    for action, reward in [(0, 1.0), (1, 3.0)]:
        trajectory.push(state=0, action=action)
        trajectory.push(reward=reward, terminal=False, truncated=False)
        env._reward = reward
        update(learner, trajectory, env, PostActStage())
    np.testing.assert_allclose(learner.H[0], [-2 / 3, 4 / 3, -2 / 3])
    assert learner.average_reward[0] == pytest.approx(2.0)
    for bad in (0.0, -0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="alpha"):
            GradientBanditLearner(n_actions=3, alpha=bad)
    with pytest.raises(ValueError, match="alpha"):
        BanditLearner(n_actions=3, alpha=1.5)  # action values: a step size in (0, 1]


def test_ucb_score_by_hand_and_rlcore_convention():
    values = np.array([[0.0, 0.5]])
    ucb = BatchUCBExplorer(c=2.0, seed=0)
    ucb(values), ucb(values)  # both arms tried once (untried arms first)
    # Third step, book's t = 3: Q(a) + c √(ln 3 / N(a)) with N = 1.
    np.testing.assert_allclose(ucb._scores(values)[0], [0.0 + 2 * np.sqrt(np.log(3)),
                                                        0.5 + 2 * np.sqrt(np.log(3))])
    assert ucb(values)[0] == 1
    # rlcore.UCBExplorer follows ReinforcementLearning.jl: ln(step + 1), step starting at 1, so
    # at its third step the bonus uses ln 4 (documented difference).
    core = UCBExplorer(2, c=2.0, seed=0)
    core([0.0, 0.5]), core([0.0, 0.5])
    np.testing.assert_allclose(core._scores([0.0, 0.5]), [2 * np.sqrt(np.log(4)),
                                                          0.5 + 2 * np.sqrt(np.log(4))])


def test_batch_explorers_reject_masks():
    values = np.zeros((2, 3))
    mask = np.ones((2, 3), dtype=bool)
    for explorer in (BatchEpsilonGreedyExplorer(0.1, seed=0), BatchUCBExplorer(seed=0),
                     BatchSoftmaxExplorer(seed=0)):
        with pytest.raises(ValueError, match="does not support action masks"):
            explorer(values, mask)
        with pytest.raises(ValueError, match="does not support action masks"):
            explorer.prob(values, mask)


def test_runner_weights_unequal_chunks_by_runs():
    # n_runs = 10 in chunks of 3: sizes 3, 3, 3, 1. Each chunk's curve is its own size n, so the
    # run-weighted mean is (3·3 + 3·3 + 3·3 + 1·1)/10 = 2.8; an unweighted mean of the chunk
    # curves would be (3 + 3 + 3 + 1)/4 = 2.5.
    seen = []

    def make(n, rng):
        seen.append(n)
        env = BatchMultiArmBanditsEnv(n_envs=n, rng=rng)
        policy = BatchQBasedPolicy(BanditLearner(n_actions=10, n_envs=n),
                                   BatchEpsilonGreedyExplorer(0.1, rng=rng))
        # batched=True: the last chunk is a batched env of a single bandit.
        return Experiment(Agent(policy, bandit_trajectory(n, batched=True)), env,
                          StopAfterStep(2), RewardsPerEpisode())
    mean, curves, sizes = run_many(make, n_runs=10, chunk_size=3, return_all=True,
                                   curve=lambda hook: [float(seen[-1])] * 2)
    assert seen == [3, 3, 3, 1] and sizes.tolist() == [3, 3, 3, 1]
    np.testing.assert_allclose(mean, [2.8, 2.8])
    np.testing.assert_allclose(curves[:, 0], [3, 3, 3, 1])
