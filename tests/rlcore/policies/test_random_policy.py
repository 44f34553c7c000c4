import gymnasium.spaces as spaces
import numpy as np
import pytest

from rlcore.envs.traits import FULL_ACTION_SET
from rlcore.policies.random_policy import RandomPolicy
from tests.helpers import LineEnv


class MaskedEnv(LineEnv):
    ActionStyle = FULL_ACTION_SET

    def action_space(self, player=None):
        return spaces.Discrete(4)

    def legal_action_space(self, player=None):
        return [1, 3]


def test_uniform_over_a_discrete_space_and_reproducible():
    env = LineEnv()
    actions = [RandomPolicy(seed=3)(env) for _ in range(1)]
    p = RandomPolicy(seed=3)
    draws = np.array([p(env) for _ in range(4000)])
    assert set(draws) == {0, 1}
    # 4000 fair coin flips: std of the mean is 0.0079, so 0.04 is five standard deviations.
    assert abs(draws.mean() - 0.5) < 0.04
    q = RandomPolicy(seed=3)
    assert [q(env) for _ in range(4000)] == list(draws)
    assert actions[0] == draws[0]
    assert all(isinstance(a, int) for a in draws[:5].tolist())


def test_respects_legal_actions_under_full_action_set():
    env = MaskedEnv()
    p = RandomPolicy(seed=0)
    draws = [p(env) for _ in range(2000)]
    assert set(draws) == {1, 3}
    np.testing.assert_allclose(p.prob(env), [0, 0.5, 0, 0.5])


def test_box_and_other_spaces_do_not_touch_global_random_state():
    box = spaces.Box(-2.0, 2.0, shape=(3,), dtype=np.float32)
    state = np.random.get_state()[1].copy()
    a = RandomPolicy(box, seed=1)(LineEnv())
    b = RandomPolicy(box, seed=1)(LineEnv())
    np.testing.assert_array_equal(a, b)
    assert box.contains(a)
    multi = spaces.MultiDiscrete([3, 4])
    x = RandomPolicy(multi, seed=2)(LineEnv())
    assert multi.contains(x)
    np.testing.assert_array_equal(x, RandomPolicy(multi, seed=2)(LineEnv()))
    np.testing.assert_array_equal(state, np.random.get_state()[1])


def test_bad_arguments():
    with pytest.raises(TypeError, match="gymnasium Space"):
        RandomPolicy(action_space=[0, 1])
    with pytest.raises(ValueError, match="rng or seed"):
        RandomPolicy(rng=np.random.default_rng(0), seed=1)
