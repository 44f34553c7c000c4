"""Running normalisers: Chan et al.'s combination against numpy over all the data, the
observation normaliser's buffers and clipping, the reward scale computed by hand."""

import pickle

import numpy as np
import pytest
import torch

from rlzoo.policy_gradient.normalizers import (
    ObservationNormalizer, RewardNormalizer, RunningMeanStd, combine_moments,
)


def test_running_mean_std_equals_numpy_over_all_the_data():
    rng = np.random.default_rng(0)
    batches = [rng.normal(3.0, 2.0, size=(size, 3)) for size in (1, 7, 100, 2, 50)]
    stats = RunningMeanStd((3,))
    for batch in batches:
        stats.update(batch)
    data = np.concatenate(batches)
    np.testing.assert_allclose(stats.mean, data.mean(axis=0), rtol=0, atol=1e-6)
    np.testing.assert_allclose(stats.var, data.var(axis=0), rtol=0, atol=1e-6)
    assert stats.count == 160


def test_running_mean_std_by_hand():
    stats = RunningMeanStd()
    assert stats.mean == 0.0 and stats.var == 1.0          # before any sample
    stats.update([1.0, 3.0])
    stats.update([5.0])
    # {1, 3, 5}: mean 3, population variance (4 + 0 + 4) / 3 = 8/3
    assert stats.mean == pytest.approx(3.0) and stats.var == pytest.approx(8 / 3)
    stats.update(np.zeros((0,)))                              # an empty batch changes nothing
    assert stats.count == 3
    with pytest.raises(ValueError, match=r"samples of shape \(batch, \*\(\)\), got \(2, 2\)"):
        stats.update(np.zeros((2, 2)))


def test_combine_moments_takes_tensors_too():
    # {1, 3} (mean 2, var 1) with {5} (mean 5, var 0): δ = 3, N = 3,
    # mean = 2 + 3 · 1/3 = 3, var = (1 · 2 + 0 + 9 · 2 · 1/3) / 3 = 8/3
    mean, var, count = combine_moments(torch.tensor(2.0), torch.tensor(1.0), 2,
                                       torch.tensor(5.0), torch.tensor(0.0), 1)
    assert (mean.item(), var.item(), count) == (pytest.approx(3.0), pytest.approx(8 / 3), 3)


def _observations(n=4000, seed=0):
    return torch.from_numpy(np.random.default_rng(seed).normal(5.0, 3.0, size=(n, 2))).float()


def test_observation_normalizer_standardises_what_it_has_seen():
    normalizer = ObservationNormalizer(2)
    x = _observations()
    for batch in x.split(500):
        normalizer.update(batch)
    torch.testing.assert_close(normalizer.mean, torch.full((2,), 5.0, dtype=torch.float64),
                               atol=0.2, rtol=0)
    torch.testing.assert_close(normalizer.var, torch.full((2,), 9.0, dtype=torch.float64),
                               atol=0.6, rtol=0)
    y = normalizer(x)
    assert y.dtype == torch.float32
    # the statistics are those of x itself (population variance): mean 0 and std 1 exactly,
    # up to float32 rounding (N(5, 3²) never reaches the clip, 10 standard deviations out)
    torch.testing.assert_close(y.mean(0), torch.zeros(2), atol=1e-5, rtol=0)
    torch.testing.assert_close(y.std(0, unbiased=False), torch.ones(2), atol=1e-5, rtol=0)


def test_observation_normalizer_by_hand_and_from_numpy():
    normalizer = ObservationNormalizer((2,))
    normalizer.update(np.array([[1.0, 10.0], [3.0, 10.0]]))
    # mean [2, 10], var [1, 0]: (3 − 2) / sqrt(1 + 1e-8) ≈ 1; (10 − 10) / sqrt(1e-8) = 0
    torch.testing.assert_close(normalizer(torch.tensor([[3.0, 10.0]])), torch.tensor([[1.0, 0.0]]))
    assert normalizer.count.item() == 2


def test_observation_normalizer_clips():
    normalizer = ObservationNormalizer(1)
    normalizer.update(torch.tensor([[-1.0], [1.0]]))          # mean 0, var 1
    x = torch.tensor([[100.0], [-100.0], [0.5]])
    torch.testing.assert_close(normalizer(x), torch.tensor([[10.0], [-10.0], [0.5]]))
    narrow = ObservationNormalizer(1, clip=3.0)
    narrow.update(torch.tensor([[-1.0], [1.0]]))
    torch.testing.assert_close(narrow(x), torch.tensor([[3.0], [-3.0], [0.5]]))


def test_observation_normalizer_state_is_in_the_state_dict_not_in_the_parameters():
    net = torch.nn.Sequential(ObservationNormalizer(2), torch.nn.Linear(2, 1))
    net[0].update(_observations())
    assert {"0.mean", "0.var", "0.count"} <= set(net.state_dict())
    assert len(list(net.parameters())) == 2                   # the Linear's weight and bias
    restored = torch.nn.Sequential(ObservationNormalizer(2), torch.nn.Linear(2, 1))
    restored.load_state_dict(net.state_dict())
    x = _observations(10, seed=1)
    torch.testing.assert_close(restored(x), net(x))
    # no gradient reaches the buffers
    net(x).sum().backward()
    assert not net[0].mean.requires_grad


def test_observation_normalizer_checks_its_input():
    normalizer = ObservationNormalizer(3)
    with pytest.raises(ValueError,
                       match=r"observations of shape \(batch, \*\(3,\)\), got \(4, 2\)"):
        normalizer.update(torch.zeros(4, 2))
    with pytest.raises(ValueError, match="clip must be > 0, got 0"):
        ObservationNormalizer(3, clip=0)


def test_reward_normalizer_scales_by_the_std_of_the_discounted_return():
    normalizer = RewardNormalizer(1, gamma=0.5)
    scaled = normalizer.normalize(np.ones((3, 1), np.float32), np.zeros((3, 1), bool))
    # ret = 1, 1.5, 1.75; the variance after each step is that of the returns so far:
    # {1}: 0, so 1 / sqrt(1e-8) = 1e4 is clipped to 10;
    # {1, 1.5}: mean 1.25, var 0.0625, std 0.25 -> 1 / 0.25 = 4;
    # {1, 1.5, 1.75}: mean 1.41667, var (0.41667² + 0.08333² + 0.33333²) / 3 = 0.097222,
    # std 0.311805 -> 3.20713
    np.testing.assert_allclose(scaled, [[10.0], [4.0], [3.20713]], rtol=1e-5)
    assert scaled.dtype == np.float32
    np.testing.assert_allclose(normalizer.returns, [1.75])


def test_reward_normalizer_resets_the_return_at_an_episode_boundary():
    normalizer = RewardNormalizer(1, gamma=0.5)
    scaled = normalizer.normalize(np.ones((3, 1)), np.array([[False], [True], [False]]))
    # ret = 1, 1.5 (then reset to 0 by the boundary), 1: {1, 1.5, 1} has mean 7/6 and
    # variance (2 (1/6)² + (1/3)²) / 3 = 1/18 -> 1 / sqrt(1/18) = 3 sqrt 2 = 4.24264
    np.testing.assert_allclose(scaled[2], [3 * np.sqrt(2)], rtol=1e-5)
    np.testing.assert_allclose(normalizer.returns, [1.0])


def test_reward_normalizer_keeps_torch_and_its_state_across_calls():
    rewards = torch.tensor([[1.0, -2.0], [0.5, 1.0], [2.0, 0.0], [1.0, 1.0]])
    dones = torch.tensor([[False, False], [False, True], [True, False], [False, False]])
    whole = RewardNormalizer(2, gamma=0.9).normalize(rewards, dones)
    assert isinstance(whole, torch.Tensor) and whole.dtype == torch.float32
    split = RewardNormalizer(2, gamma=0.9)
    parts = [split.normalize(rewards[:2], dones[:2]), split.normalize(rewards[2:], dones[2:])]
    torch.testing.assert_close(torch.cat(parts), whole)
    # scaled, not centred: the signs are kept
    assert torch.equal(torch.sign(whole), torch.sign(rewards))


def test_reward_normalizer_pickles_with_its_state():
    normalizer = RewardNormalizer(2, gamma=0.9)
    normalizer.normalize(np.ones((5, 2)), np.zeros((5, 2)))
    copy = pickle.loads(pickle.dumps(normalizer))
    np.testing.assert_array_equal(copy.returns, normalizer.returns)
    assert copy.return_stats.count == 10
    next_rewards, no = np.full((1, 2), 2.0), np.zeros((1, 2))
    np.testing.assert_array_equal(copy.normalize(next_rewards, no),
                                  normalizer.normalize(next_rewards, no))


def test_reward_normalizer_checks_its_input():
    with pytest.raises(ValueError, match=r"rewards and dones of shape \(T, 2\), got \(3, 1\) "
                                         r"and \(3, 1\)"):
        RewardNormalizer(2, gamma=0.9).normalize(np.ones((3, 1)), np.zeros((3, 1)))
    with pytest.raises(ValueError, match=r"gamma must be a real number in \[0, 1\], got 1.5"):
        RewardNormalizer(2, gamma=1.5)
    with pytest.raises(ValueError, match="n_envs must be an integer >= 1, got 0"):
        RewardNormalizer(0, gamma=0.9)
