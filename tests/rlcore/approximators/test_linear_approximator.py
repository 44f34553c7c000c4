import numpy as np
import pytest

from rlcore.approximators.linear_approximator import LinearApproximator
from rlcore.dispatch import update


def features(s):
    return np.array([1.0, s, s * s])


def test_state_value_update_matches_hand_computation():
    app = LinearApproximator(features, n_features=3, alpha=0.1, init=0.5)
    assert app(2.0) == pytest.approx(0.5 * (1 + 2 + 4))
    update(app, (2.0, 1.5))                  # w += 0.1 · 1.5 · [1, 2, 4]
    np.testing.assert_allclose(app.weights, [0.65, 0.8, 1.1])
    assert app(1.0) == pytest.approx(0.65 + 0.8 + 1.1)


def test_action_value_update_matches_hand_computation():
    app = LinearApproximator(features, n_features=3, n_actions=2, alpha=0.5)
    update(app, (1.0, 1, 2.0))               # w[1] += 0.5 · 2 · [1, 1, 1]
    np.testing.assert_allclose(app.weights, [[0, 0, 0], [1, 1, 1]])
    np.testing.assert_allclose(app(2.0), [0.0, 7.0])
    assert app(2.0, 1) == pytest.approx(7.0)


def test_identity_features_and_gradient_mc_converges_to_least_squares():
    rng = np.random.default_rng(0)
    true_w = np.array([1.0, -2.0])
    app = LinearApproximator(None, n_features=2, alpha=0.05)
    for _ in range(4000):
        x = rng.normal(size=2)
        update(app, (x, x @ true_w - app(x)))
    np.testing.assert_allclose(app.weights, true_w, atol=1e-6)


def test_errors():
    app = LinearApproximator(features, n_features=2)
    with pytest.raises(ValueError, match=r"shape \(2,\).*\(3,\)"):
        app(1.0)
    v = LinearApproximator(None, n_features=2)
    with pytest.raises(TypeError, match="state, delta"):
        update(v, (np.zeros(2), 0, 1.0))
    with pytest.raises(TypeError, match="no action"):
        v(np.zeros(2), 0)
    q = LinearApproximator(None, n_features=2, n_actions=3)
    with pytest.raises(ValueError, match="action.*3"):
        update(q, (np.zeros(2), 3, 1.0))
    with pytest.raises(ValueError, match="finite"):
        update(q, (np.zeros(2), 0, np.inf))
    assert not q.weights.any()
    with pytest.raises(ValueError, match="alpha.*-0.1"):
        LinearApproximator(None, n_features=2, alpha=-0.1)
    with pytest.raises(TypeError, match="feature_fn"):
        LinearApproximator(3, n_features=2)
