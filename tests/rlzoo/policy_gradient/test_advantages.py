"""Discounted returns and GAE against hand-computed values; terminations, truncations, several
environments, the λ = 0 and λ = 1 limits; advantage normalisation; input checks."""

import pytest
import torch

from rlzoo.policy_gradient.advantages import discounted_returns, gae, normalize


def column(*values):
    """A (T, 1) tensor: one environment."""
    return torch.tensor(values).unsqueeze(1)


REWARDS = column(1.0, 1.0, 1.0)
VALUES = column(0.5, 0.5, 0.5)
NEXT_VALUES = column(0.5, 0.5, 2.0)
NO = column(False, False, False)


def test_gae_of_three_steps_by_hand():
    advantages, returns = gae(REWARDS, VALUES, NEXT_VALUES, NO, NO, gamma=0.9, lam=0.5)
    # δ_0 = δ_1 = 1 + 0.9 · 0.5 − 0.5 = 0.95; δ_2 = 1 + 0.9 · 2 − 0.5 = 2.3; γλ = 0.45
    # A_2 = 2.3; A_1 = 0.95 + 0.45 · 2.3 = 1.985; A_0 = 0.95 + 0.45 · 1.985 = 1.84325
    torch.testing.assert_close(advantages, column(1.84325, 1.985, 2.3))
    # returns = A + V
    torch.testing.assert_close(returns, column(2.34325, 2.485, 2.8))


def test_a_termination_cuts_the_bootstrap_and_the_recursion():
    terminal = column(False, True, False)
    advantages, _ = gae(REWARDS, VALUES, NEXT_VALUES, terminal, terminal, gamma=0.9, lam=0.5)
    # δ_1 = 1 + 0 − 0.5 = 0.5 (no bootstrap); A_2 = 2.3 does not reach back: A_1 = 0.5;
    # A_0 = 0.95 + 0.45 · 0.5 = 1.175
    torch.testing.assert_close(advantages, column(1.175, 0.5, 2.3))


def test_a_truncation_bootstraps_from_its_final_state_but_cuts_the_recursion():
    truncated = column(False, True, False)
    next_values = column(0.5, 10.0, 2.0)          # V of the true final state of step 1: 10
    advantages, _ = gae(REWARDS, VALUES, next_values, NO, truncated, gamma=0.9, lam=0.5)
    # δ_1 = 1 + 0.9 · 10 − 0.5 = 9.5; A_1 = δ_1 (A_2 = 2.3 is the next episode's);
    # A_0 = 0.95 + 0.45 · 9.5 = 5.225
    torch.testing.assert_close(advantages, column(5.225, 9.5, 2.3))


def test_float_flags_give_the_same_as_bool_flags():
    terminal = column(False, True, False)
    as_bool = gae(REWARDS, VALUES, NEXT_VALUES, terminal, terminal, gamma=0.9, lam=0.5)
    as_float = gae(REWARDS, VALUES, NEXT_VALUES, terminal.float(), terminal.float(), gamma=0.9,
                   lam=0.5)
    torch.testing.assert_close(as_bool, as_float)


def _random_rollout(t=7, n=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    rewards, values, next_values = (torch.randn(t, n, generator=g) for _ in range(3))
    terminals = torch.rand(t, n, generator=g) < 0.2
    dones = terminals | (torch.rand(t, n, generator=g) < 0.2)
    return rewards, values, next_values, terminals, dones


def test_several_environments_match_each_run_alone():
    rollout = _random_rollout()
    advantages, returns = gae(*rollout, gamma=0.95, lam=0.9)
    for env in range(3):
        alone = gae(*(x[:, env:env + 1] for x in rollout), gamma=0.95, lam=0.9)
        torch.testing.assert_close(advantages[:, env:env + 1], alone[0])
        torch.testing.assert_close(returns[:, env:env + 1], alone[1])


def test_lambda_zero_gives_the_td_errors():
    rewards, values, next_values, terminals, dones = _random_rollout()
    advantages, _ = gae(rewards, values, next_values, terminals, dones, gamma=0.9, lam=0.0)
    torch.testing.assert_close(advantages, rewards + 0.9 * ~terminals * next_values - values)


def test_lambda_one_gives_the_bootstrapped_discounted_returns_minus_the_values():
    # without boundaries V(s'_t) = V(s_{t+1}), so the δ telescope: Σ_k γ^k δ_{t+k} = G_t − V(s_t)
    g = torch.Generator().manual_seed(1)
    rewards, values = torch.randn(6, 2, generator=g), torch.randn(7, 2, generator=g)
    no = torch.zeros(6, 2, dtype=torch.bool)
    advantages, returns = gae(rewards, values[:-1], values[1:], no, no, gamma=0.9, lam=1.0)
    expected = discounted_returns(rewards, no, 0.9, last_value=values[-1])
    torch.testing.assert_close(returns, expected)
    torch.testing.assert_close(advantages, expected - values[:-1])
    # and by hand on the three steps: G_2 = 1 + 0.9 · 2 = 2.8, G_1 = 1 + 0.9 · 2.8 = 3.52,
    # G_0 = 1 + 0.9 · 3.52 = 4.168
    _, returns = gae(REWARDS, VALUES, NEXT_VALUES, NO, NO, gamma=0.9, lam=1.0)
    torch.testing.assert_close(returns, column(4.168, 3.52, 2.8))


def test_discounted_returns_by_hand():
    rewards, dones = column(1.0, 2.0, 3.0), column(False, True, False)
    # G_2 = 3 + 0.5 · 4 = 5; G_1 = 2 (episode ends); G_0 = 1 + 0.5 · 2 = 2
    torch.testing.assert_close(discounted_returns(rewards, dones, 0.5, torch.tensor([4.0])),
                               column(2.0, 2.0, 5.0))
    # without last_value the rollout's end bootstraps from 0: G_2 = 3
    torch.testing.assert_close(discounted_returns(rewards, dones, 0.5), column(2.0, 2.0, 3.0))
    # two environments: the second never ends, G = 1 + 0.5 (1 + 0.5 · 1) = 1.75 at t = 0
    rewards2 = torch.tensor([[1.0, 1.0], [2.0, 1.0], [3.0, 1.0]])
    dones2 = torch.tensor([[False, False], [True, False], [False, False]])
    torch.testing.assert_close(discounted_returns(rewards2, dones2, 0.5),
                               torch.tensor([[2.0, 1.75], [2.0, 1.5], [3.0, 1.0]]))


def test_normalize():
    # mean 2, sample std sqrt((1 + 0 + 1) / 2) = 1
    torch.testing.assert_close(normalize(torch.tensor([1.0, 2.0, 3.0])),
                               torch.tensor([-1.0, 0.0, 1.0]))
    x = torch.randn(64, 4, generator=torch.Generator().manual_seed(0)) * 3 + 7
    y = normalize(x)
    assert y.shape == (64, 4)
    assert y.mean().item() == pytest.approx(0.0, abs=1e-6)
    assert y.std().item() == pytest.approx(1.0, abs=1e-6)
    # one element: its standard deviation is undefined; centred on itself it is 0
    assert normalize(torch.tensor([5.0])).tolist() == [0.0]
    assert normalize(torch.tensor([])).shape == (0,)


def test_inputs_are_checked_with_their_shapes_named():
    with pytest.raises(ValueError, match=r"one shape \(T, n_envs\), got rewards \(3, 1\), "
                                         r"values \(3, 2\)"):
        gae(REWARDS, torch.zeros(3, 2), NEXT_VALUES, NO, NO, 0.9, 0.5)
    with pytest.raises(ValueError, match=r"got rewards \(3,\), dones \(3,\)"):
        discounted_returns(torch.zeros(3), torch.zeros(3), 0.9)
    with pytest.raises(ValueError, match=r"gamma must be a real number in \[0, 1\], got 1.5"):
        gae(REWARDS, VALUES, NEXT_VALUES, NO, NO, 1.5, 0.5)
    with pytest.raises(ValueError, match=r"lam must be a real number in \[0, 1\], got -0.1"):
        gae(REWARDS, VALUES, NEXT_VALUES, NO, NO, 0.9, -0.1)
    with pytest.raises(ValueError, match=r"last_value must have shape \(1,\), got \(2,\)"):
        discounted_returns(REWARDS, NO, 0.9, last_value=torch.zeros(2))
