import numpy as np
import pytest


@pytest.fixture
def assert_frequencies():
    """Check the empirical action frequencies of ``draw()`` against ``probs``.

    With ``n`` draws, a frequency has standard deviation ``sqrt(p (1 - p) / n)``; the tolerance
    is 5 of those (plus 1e-12 for p in {0, 1}), so a correct explorer fails with probability
    below 1e-6 per action even if the seed changes, while an error of a few percent is caught.
    """
    def check(draw, probs, n=20_000):
        probs = np.asarray(probs, dtype=float)
        counts = np.bincount([draw() for _ in range(n)], minlength=probs.size)
        assert counts.size == probs.size
        freqs = counts / n
        tolerance = 5 * np.sqrt(probs * (1 - probs) / n) + 1e-12
        assert np.all(np.abs(freqs - probs) <= tolerance), (freqs, probs, tolerance)
        return freqs
    return check
