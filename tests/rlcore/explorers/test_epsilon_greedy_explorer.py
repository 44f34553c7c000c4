import copy
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rlcore.explorers.epsilon_greedy_explorer import EpsilonGreedyExplorer, GreedyExplorer


# ---- schedules, against hand-computed values of RL.jl's formulas --------------------------

@pytest.mark.parametrize("step, expected", [
    (1, 0.9), (100, 0.9),                         # warm-up: ε_init, boundary included
    (101, 0.1 + 99 / 100 * 0.8),                  # first decay step
    (150, 0.5),                                   # half way: 0.1 + 50/100 · 0.8
    (199, 0.1 + 1 / 100 * 0.8),
    (200, 0.1), (201, 0.1), (10_000, 0.1),       # warmup + decay and after: ε_stable
])
def test_linear_schedule(step, expected):
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.1, epsilon_init=0.9, warmup_steps=100,
                                     decay_steps=100, step=step)
    assert explorer.epsilon == pytest.approx(expected, abs=1e-12)
    assert explorer.get_epsilon() == explorer.epsilon
    assert explorer.epsilon_at(step) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("step, expected", [
    (1, 0.9), (100, 0.9),
    (101, 0.1 + 0.8 * math.exp(-1 / 100)),
    (150, 0.1 + 0.8 * math.exp(-0.5)),
    (200, 0.1 + 0.8 * math.exp(-1.0)),
    (1100, 0.1 + 0.8 * math.exp(-10.0)),
])
def test_exp_schedule(step, expected):
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.1, kind="exp", epsilon_init=0.9,
                                     warmup_steps=100, decay_steps=100, step=step)
    assert explorer.epsilon == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("kind", ["linear", "exp"])
def test_no_decay_steps_jumps_to_stable_after_warmup(kind):
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.2, kind=kind, warmup_steps=3)
    assert [explorer.epsilon_at(t) for t in (1, 3, 4, 100)] == [1.0, 1.0, 0.2, 0.2]


def test_each_training_call_advances_the_step_and_uses_the_current_epsilon():
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.1, decay_steps=10, seed=0)
    for k in range(1, 15):
        explorer([0.0, 1.0])
        assert explorer.step == 1 + k
        assert explorer.epsilon == pytest.approx(explorer.epsilon_at(1 + k))
    # ε of the step *before* the increment is used: ε = 0 at step 1, then ε = 1.
    firsts, seconds = [], []
    for seed in range(200):
        explorer = EpsilonGreedyExplorer(epsilon_stable=1.0, epsilon_init=0.0, warmup_steps=1,
                                         seed=seed)
        firsts.append(explorer([0.0, 1.0]))
        seconds.append(explorer([0.0, 1.0]))
    assert set(firsts) == {1}
    assert set(seconds) == {0, 1}


# ---- sampling agrees with prob -----------------------------------------------------------

@pytest.mark.parametrize("mask", [None, [True, True, False, True]])
def test_frequencies_match_prob(assert_frequencies, mask):
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.3, epsilon_init=0.3, seed=1)
    values = np.array([1.0, 3.0, 3.0, 0.0])
    probs = explorer.prob(values, mask)
    if mask is None:
        np.testing.assert_allclose(probs, [0.075, 0.075 + 0.35, 0.075 + 0.35, 0.075])
    else:  # the greedy set is {1}: legal maxima only
        np.testing.assert_allclose(probs, [0.1, 0.1 + 0.7, 0.0, 0.1])
    assert probs.sum() == pytest.approx(1.0)
    assert_frequencies(lambda: explorer(values, mask), probs)


def test_frequencies_without_tie_breaking(assert_frequencies):
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.4, epsilon_init=0.4, is_break_tie=False,
                                     seed=2)
    values = [0.0, 5.0, 5.0]
    probs = explorer.prob(values)
    np.testing.assert_allclose(probs, [0.4 / 3, 0.4 / 3 + 0.6, 0.4 / 3])
    assert_frequencies(lambda: explorer(values), probs)


def test_ties_are_broken_uniformly(assert_frequencies):
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.0, epsilon_init=0.0, seed=3)
    values = [2.0, 1.0, 2.0, 2.0]
    np.testing.assert_allclose(explorer.prob(values), [1 / 3, 0, 1 / 3, 1 / 3])
    assert_frequencies(lambda: explorer(values), [1 / 3, 0, 1 / 3, 1 / 3])


def test_mask_is_respected():
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.5, epsilon_init=0.5, seed=4)
    values = np.array([9.0, 1.0, 2.0, 9.0])
    mask = np.array([False, True, True, False])
    actions = {explorer(values, mask) for _ in range(2000)}
    assert actions == {1, 2}
    probs = explorer.prob(values, mask)
    assert probs[0] == probs[3] == 0.0
    np.testing.assert_allclose(probs, [0, 0.25, 0.75, 0])


def test_nan_values_are_never_greedy():
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.0, epsilon_init=0.0, seed=5)
    assert {explorer([np.nan, 1.0, 0.5]) for _ in range(200)} == {1}
    assert {explorer([1.0, np.nan]) for _ in range(200)} == {0}
    np.testing.assert_allclose(explorer.prob([np.nan, 1.0]), [0.0, 1.0])
    assert {explorer([np.nan, np.nan]) for _ in range(200)} == {0, 1}  # all NaN: random


def test_values_as_list_array_or_tensor_give_the_same_actions():
    values = [0.3, 0.1, 0.3, 0.2]
    runs = []
    for converted in (values, np.array(values), torch.tensor(values, requires_grad=True)):
        explorer = EpsilonGreedyExplorer(epsilon_stable=0.2, decay_steps=50, seed=6)
        runs.append([explorer(converted) for _ in range(100)])
    assert runs[0] == runs[1] == runs[2]
    mask = torch.tensor([False, True, True, True])
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.0, epsilon_init=0.0, seed=7)
    assert explorer(torch.tensor(values), mask) == 2


def test_reproducible_with_seed_and_rng():
    def actions(**kwargs):
        explorer = EpsilonGreedyExplorer(epsilon_stable=0.5, **kwargs)
        return [explorer([0.0, 0.0, 1.0]) for _ in range(200)]
    assert actions(seed=11) == actions(seed=11)
    assert actions(seed=11) != actions(seed=12)
    assert actions(rng=np.random.default_rng(11)) == actions(seed=11)
    with pytest.raises(ValueError, match="rng or seed"):
        EpsilonGreedyExplorer(epsilon_stable=0.1, rng=np.random.default_rng(), seed=1)


# ---- test mode ----------------------------------------------------------------------------

def test_test_mode_is_greedy_and_does_not_advance():
    explorer = EpsilonGreedyExplorer(epsilon_stable=1.0, step=7, seed=8)
    explorer.is_training = False
    assert explorer.epsilon == 0.0
    assert {explorer([0.0, 2.0, 1.0]) for _ in range(500)} == {1}
    assert explorer.step == 7
    np.testing.assert_allclose(explorer.prob([0.0, 2.0, 1.0]), [0, 1, 0])
    # ties are still broken at random in test mode
    assert {explorer([2.0, 2.0, 1.0]) for _ in range(500)} == {0, 1}
    explorer.is_training = True
    assert explorer.epsilon == 1.0
    explorer([0.0, 1.0])
    assert explorer.step == 8


# ---- validation -------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, fragment", [
    (dict(epsilon_stable=1.5), "epsilon_stable.*\\[0, 1\\].*1.5"),
    (dict(epsilon_stable=-0.1), "epsilon_stable.*-0.1"),
    (dict(epsilon_stable=0.1, epsilon_init=2), "epsilon_init.*2"),
    (dict(epsilon_stable=float("nan")), "epsilon_stable"),
    (dict(epsilon_stable=0.1, decay_steps=-1), "decay_steps.*>= 0.*-1"),
    (dict(epsilon_stable=0.1, warmup_steps=2.5), "warmup_steps.*2.5"),
    (dict(epsilon_stable=0.1, step=-3), "step.*-3"),
    (dict(epsilon_stable=0.1, kind="cosine"), "kind.*cosine"),
])
def test_bad_hyper_parameters_raise(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        EpsilonGreedyExplorer(**kwargs)


def test_bad_values_and_masks_raise():
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.1, seed=0)
    with pytest.raises(ValueError, match="mask has 3 entries"):
        explorer([0.0, 1.0], [True, False, True])
    with pytest.raises(ValueError, match="allows no action"):
        explorer([0.0, 1.0], [False, False])
    with pytest.raises(ValueError, match="1-D"):
        explorer(np.zeros((2, 2, 2)))  # 2-D is a batch (below); 3-D is nothing
    with pytest.raises(ValueError, match="empty"):
        explorer([])


# ---- GreedyExplorer -------------------------------------------------------------------------

def test_greedy_explorer(assert_frequencies):
    explorer = GreedyExplorer(seed=0)
    assert explorer([0.0, 3.0, 1.0]) == 1
    assert explorer([5.0, 3.0, 1.0], [False, True, True]) == 1
    np.testing.assert_allclose(explorer.prob([1.0, 3.0, 3.0]), [0, 0.5, 0.5])
    np.testing.assert_allclose(explorer.prob([1.0, 3.0, 3.0], [True, True, False]), [0, 1, 0])
    assert_frequencies(lambda: explorer([3.0, 1.0, 3.0]), [0.5, 0, 0.5])
    first = GreedyExplorer(is_break_tie=False)
    assert {first([3.0, 1.0, 3.0]) for _ in range(100)} == {0}
    np.testing.assert_allclose(first.prob([3.0, 1.0, 3.0]), [1, 0, 0])


# ---- properties over random inputs ----------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.integers(-3, 3).map(float), min_size=1, max_size=8),
       epsilon=st.floats(0, 1), data=st.data())
def test_prob_is_a_distribution_on_legal_actions(values, epsilon, data):
    mask = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values))
                     .filter(any))
    explorer = EpsilonGreedyExplorer(epsilon_stable=epsilon, epsilon_init=epsilon, seed=0)
    probs = explorer.prob(values, mask)
    assert probs.sum() == pytest.approx(1.0)
    assert np.all(probs[~np.array(mask)] == 0)
    assert mask[explorer(values, mask)]
    best = max(v for v, m in zip(values, mask) if m)
    legal_best = [i for i, (v, m) in enumerate(zip(values, mask)) if m and v == best]
    assert all(probs[i] == pytest.approx(probs[legal_best[0]]) for i in legal_best)


def test_attrs_evolve_of_a_seeded_explorer_shares_its_generator():
    # evolve passes both the rng made from the seed and the seed: accepted, the rng is shared
    import attrs

    explorer = EpsilonGreedyExplorer(epsilon_stable=1.0, seed=4)
    evolved = attrs.evolve(explorer, epsilon_stable=0.5)
    assert evolved.epsilon_stable == 0.5 and evolved.seed == 4 and evolved.rng is explorer.rng
    copied = attrs.evolve(copy.deepcopy(explorer))  # a copied generator keeps its seed
    assert copied.rng is not explorer.rng
    assert copied.rng.random() == explorer.rng.random()


def test_rng_and_seed_together_need_the_rng_made_from_that_seed():
    child = np.random.SeedSequence(4).spawn(1)[0]  # entropy 4, but a spawned stream
    for rng in (np.random.default_rng(5), np.random.default_rng(child),
                np.random.default_rng()):
        with pytest.raises(ValueError, match="give rng or seed, not both .* seed=4; both are "
                                             "accepted only when rng was made from that seed"):
            EpsilonGreedyExplorer(epsilon_stable=0.1, rng=rng, seed=4)
    rng = np.random.default_rng(4)
    assert EpsilonGreedyExplorer(epsilon_stable=0.1, rng=rng, seed=np.int64(4)).rng is rng
    with pytest.raises(TypeError, match="seed must be an int, got True"):
        EpsilonGreedyExplorer(epsilon_stable=0.1, seed=True)


# ---- batches: values of shape (batch, n_actions) ---------------------------------------------

def row_frequencies(actions, n_actions):
    """The frequency of each action in an int array of actions."""
    return np.bincount(actions, minlength=n_actions) / len(actions)


def assert_close_to(freqs, probs, n):
    """Within 5 standard deviations of a frequency over ``n`` draws (as conftest's fixture)."""
    probs = np.asarray(probs, float)
    tolerance = 5 * np.sqrt(probs * (1 - probs) / n) + 1e-12
    assert np.all(np.abs(freqs - probs) <= tolerance), (freqs, probs)


def test_a_greedy_batch_takes_each_rows_argmax():
    values = np.array([[1.0, 3.0, 2.0], [5.0, 0.0, 1.0], [0.0, 0.0, 9.0]])
    for batch in (values, torch.tensor(values, dtype=torch.float32, requires_grad=True)):
        explorer = EpsilonGreedyExplorer(epsilon_stable=0.0, epsilon_init=0.0, seed=0)
        actions = explorer(batch)
        assert type(actions) is np.ndarray and actions.dtype == np.int64
        assert actions.tolist() == [1, 0, 2]
        assert explorer.step == 4  # 1 + a batch of 3
    # the mask wins over larger values: row 0 may take 0 or 2 (largest legal: 2), row 1 only 1
    mask = np.array([[True, False, True], [False, True, False], [True, True, True]])
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.0, epsilon_init=0.0, seed=0)
    assert explorer(values, mask).tolist() == [2, 1, 2]
    assert explorer(values, torch.tensor(mask)).tolist() == [2, 1, 2]
    assert GreedyExplorer(seed=0)(values, mask).tolist() == [2, 1, 2]
    assert GreedyExplorer(seed=0)(torch.tensor(values)).tolist() == [1, 0, 2]


def test_an_exploring_batch_draws_uniform_legal_actions():
    n = 30_000
    explorer = EpsilonGreedyExplorer(epsilon_stable=1.0, seed=1)
    values = np.tile([9.0, 1.0, 2.0, 3.0], (n, 1))
    mask = np.tile([True, False, True, True], (n, 1))
    actions = explorer(values, mask)
    assert_close_to(row_frequencies(actions, 4), [1 / 3, 0, 1 / 3, 1 / 3], n)
    assert not np.any(actions == 1)  # the illegal action, however large its value, never
    actions = explorer(values)       # no mask: all four
    assert_close_to(row_frequencies(actions, 4), [0.25] * 4, n)


@pytest.mark.parametrize("is_break_tie", [True, False])
def test_batch_frequencies_match_the_one_row_prob(is_break_tie):
    # ε = 0.3 with ties: prob = ε/4 each, plus (1 - ε)/2 on each of the maxima 1 and 2 when
    # ties are broken, (1 - ε) on the first maximum otherwise
    n = 40_000
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.3, epsilon_init=0.3,
                                     is_break_tie=is_break_tie, seed=2)
    row = np.array([1.0, 3.0, 3.0, 0.0])
    expected = [0.075, 0.425, 0.425, 0.075] if is_break_tie else [0.075, 0.775, 0.075, 0.075]
    np.testing.assert_allclose(explorer.prob(row), expected)
    assert_close_to(row_frequencies(explorer(np.tile(row, (n, 1))), 4), expected, n)


def test_each_row_uses_the_epsilon_of_its_own_step():
    # linear, warm-up 2, no decay: ε = 1 at steps 1 and 2, then 0. A batch of 4 from step 1:
    # rows 0, 1 explore (any of 3 actions), rows 2, 3 are greedy (action 0)
    values = np.tile([5.0, 1.0, 0.0], (4, 1))
    rows = np.array([EpsilonGreedyExplorer(epsilon_stable=0.0, warmup_steps=2, seed=seed)(values)
                     for seed in range(3000)])
    assert set(rows[:, 2]) == set(rows[:, 3]) == {0}
    for k in (0, 1):
        assert_close_to(row_frequencies(rows[:, k], 3), [1 / 3] * 3, len(rows))
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.0, warmup_steps=2, seed=0)
    explorer(values)
    assert explorer.step == 5 and explorer.epsilon == 0.0
    assert explorer(values).tolist() == [0, 0, 0, 0] and explorer.step == 9
    # the schedule per row is epsilon_at(step + k): linear decay 1 -> 0 over steps 1..5
    decaying = EpsilonGreedyExplorer(epsilon_stable=0.0, decay_steps=4, step=3, seed=0)
    assert [decaying.epsilon_at(3 + k) for k in range(3)] == [0.25, 0.0, 0.0]


def test_batch_ties_nan_and_test_mode():
    n = 30_000
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.0, epsilon_init=0.0, seed=3)
    actions = explorer(np.tile([2.0, 1.0, 2.0, 2.0], (n, 1)))
    assert_close_to(row_frequencies(actions, 4), [1 / 3, 0, 1 / 3, 1 / 3], n)
    first = EpsilonGreedyExplorer(epsilon_stable=0.0, epsilon_init=0.0, is_break_tie=False)
    assert set(first(np.tile([2.0, 1.0, 2.0, 2.0], (100, 1))).tolist()) == {0}
    nan = np.nan
    values = np.array([[nan, 1.0, 0.5]] * 200 + [[nan, nan, 0.0]] * 200
                      + [[nan, 5.0, nan]] * 200)
    mask = np.array([[True] * 3] * 400 + [[True, False, True]] * 200)
    actions = explorer(values, mask)
    assert set(actions[:200].tolist()) == {1}          # NaN is never greedy
    assert set(actions[200:400].tolist()) == {2}
    assert set(actions[400:].tolist()) == {0, 2}       # all legal are NaN: any legal
    testing = EpsilonGreedyExplorer(epsilon_stable=1.0, step=7, is_training=False, seed=4)
    assert set(testing(np.tile([0.0, 2.0, 1.0], (500, 1))).tolist()) == {1}
    assert testing.step == 7


def test_bad_batches_raise():
    explorer = EpsilonGreedyExplorer(epsilon_stable=0.1, seed=0)
    values = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"mask must have shape \(2, 3\).*got \(3,\)"):
        explorer(values, [True, True, True])
    with pytest.raises(ValueError, match=r"mask row 1 \(\[False, False, False\]\) allows no"):
        explorer(values, np.array([[True, False, False], [False, False, False]]))
    with pytest.raises(ValueError, match="non-empty 2-D"):
        explorer(np.zeros((0, 3)))
    assert explorer.step == 1  # nothing counted


def test_the_one_row_random_stream_is_unchanged():
    # one call: a coin u (explore iff u < ε), then for exploring calls floor(u' · n); greedy
    # calls without ties draw nothing more
    values, epsilon, seed = [0.0, 2.0, 1.0], 0.5, 9
    explorer = EpsilonGreedyExplorer(epsilon_stable=epsilon, epsilon_init=epsilon, seed=seed)
    rng, expected = np.random.default_rng(seed), []
    for _ in range(50):
        expected.append(int(rng.random() * 3) if rng.random() < epsilon else 1)
    assert [explorer(values) for _ in range(50)] == expected
