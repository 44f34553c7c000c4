"""Checks users run on their own environments, after RLBase's ``test_interfaces!`` and
``test_runnable!``.

``test_interfaces(env)`` checks the traits and spaces, then plays a few random episodes checking
the interface after every step: states lie in their spaces, rewards are real numbers, the episode
flags are bools, legal actions agree with the action space and the mask, illegal actions raise
``ValueError`` and leave the environment as it was, and ``reset()`` after the end starts a fresh
episode. ``test_runnable(env)`` steps a random policy for many steps, resetting at episode ends.
Both raise :class:`EnvInterfaceError` (an ``AssertionError``) naming the environment, the method
and the offending value, so they work as assertions inside any test framework::

    from rlcore.envs import test_interfaces, test_runnable

    def test_my_env():
        test_interfaces(MyEnv(seed=0))
        test_runnable(MyEnv(seed=0), n_steps=1000, seed=0)

Random actions are drawn from a ``numpy.random.Generator`` (``rng`` or ``seed``; seed 0 when
neither is given), never from global random state. Unlike RLBase, an episode that has not ended
after ``max_episode_steps`` is left unfinished rather than failed: some environments never end
under a random policy.
"""

import copy
import math
import numbers
import reprlib

import numpy as np
from gymnasium import spaces

from rlcore.envs import traits
from rlcore.envs.traits import (
    FULL_ACTION_SET,
    IDENTICAL_UTILITY,
    MINIMAL_ACTION_SET,
    SIMULTANEOUS,
    TERMINAL_REWARD,
    ZERO_SUM,
    ExplicitStochastic,
    MultiAgent,
    SingleAgent,
)
from rlcore.utils.random import make_rng, sample_space

__all__ = ["EnvInterfaceError", "test_interfaces", "test_runnable"]


class EnvInterfaceError(AssertionError):
    """An environment breaks the interface of docs/architecture.md §2; the message says where
    and how."""


_TRAIT_BASES = {name: getattr(traits, name) for name in traits.TRAIT_NAMES}
# The one instance of each parameter-free trait class: code compares traits with ``is``.
_TRAIT_CONSTANTS = {type(value): (name, value) for name, value in vars(traits).items()
                    if name.isupper() and isinstance(value, traits.AbstractTrait)}
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 120
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 8
_CHECK_ILLEGAL_EVERY = 10  # steps between two checks that illegal actions are refused


def _show(value):
    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=12, edgeitems=3, max_line_width=120) \
            + f" (dtype {value.dtype}, shape {value.shape})"
    return _REPR.repr(value)


def _env_name(env):
    text = repr(env)
    return text if len(text) <= 80 and "\n" not in text else type(env).__name__


def _fail(env, method, problem, where="", value=None, show_value=True):
    message = f"{_env_name(env)}: {method} {problem}"
    if where:
        message += f" ({where})"
    if show_value:
        message += f"; got {_show(value)}"
    raise EnvInterfaceError(message)


def _call(env, method, where, *args):
    """Call ``env.method(*args)``; an exception becomes an EnvInterfaceError saying where."""
    try:
        return getattr(env, method)(*args)
    except EnvInterfaceError:
        raise
    except Exception as error:
        raise EnvInterfaceError(
            f"{_env_name(env)}: {_method_text(method, args)} raised "
            f"{type(error).__name__}: {error} ({where})") from error


def _method_text(method, args):
    shown = ", ".join(_show(a) for a in args)
    return f"env({shown})" if method == "__call__" else f"{method}({shown})"


# ----------------------------------------------------------------------------- values and spaces
def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


def _is_real(value):
    return isinstance(value, numbers.Real) and not _is_bool(value) and not _is_nan(value)


def _contains(space, value):
    try:
        return bool(space.contains(value))
    except Exception:
        return False


def _equal(a, b):
    """Structural equality that copes with arrays, NaNs and nested containers."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            a, b = np.asarray(a), np.asarray(b)
            if a.shape != b.shape:
                return False
            if a.dtype.kind in "fc" and b.dtype.kind in "fc":
                return bool(np.array_equal(a, b, equal_nan=True))
            return bool(np.array_equal(a, b))
        except Exception:
            return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_equal, a, b))
    try:
        if bool(a == b):
            return True
    except Exception:
        return a is b
    return _is_nan(a) and _is_nan(b)


def _is_nan(value):
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _out_of_space(space, rng):
    """Values that are certainly not in ``space`` (an empty list when none can be built)."""
    if isinstance(space, spaces.Discrete):
        return [int(space.start) + int(space.n), int(space.start) - 1]
    if isinstance(space, spaces.Box):
        finite = np.flatnonzero(np.isfinite(space.high))
        if finite.size and np.issubdtype(space.dtype, np.floating):
            bad = np.asarray(sample_space(space, rng)).copy()
            index = np.unravel_index(finite[0], space.shape)
            bad[index] = space.high[index] + max(1.0, abs(float(space.high[index])))
            if np.isfinite(bad[index]):
                return [bad]
        return [np.zeros(space.shape + (2,), dtype=space.dtype)]
    if isinstance(space, spaces.MultiDiscrete):
        return [(space.start + space.nvec).astype(space.dtype)]
    if isinstance(space, spaces.MultiBinary):
        return [np.full(space.shape, 2, dtype=space.dtype)]
    if isinstance(space, spaces.Tuple) and space.spaces:
        return [(bad,) + tuple(sample_space(s, rng) for s in space.spaces[1:])
                for bad in _out_of_space(space.spaces[0], rng)[:1]]
    return []


# ----------------------------------------------------------------------------- static checks
def _check_traits(env):
    for name, base in _TRAIT_BASES.items():
        if not hasattr(env, name):
            _fail(env, name, "is missing (subclass AbstractEnv or set the trait)",
                  show_value=False)
        value = getattr(env, name)
        values = value if name == "StateStyle" and isinstance(value, tuple) else (value,)
        if not values:
            _fail(env, name, "must hold at least one StateStyle value", value=value)
        for item in values:
            if not isinstance(item, base):
                _fail(env, name, f"must be a {base.__name__} value from rlcore.envs.traits",
                      value=item)
            if type(item) in _TRAIT_CONSTANTS:
                constant_name, constant = _TRAIT_CONSTANTS[type(item)]
                if item is not constant:
                    _fail(env, name, f"must be the constant {constant_name} (traits are "
                          "compared with `is`), not a new instance", value=item)


def _players(env, where):
    players = _call(env, "players", where)
    try:
        players = tuple(players)
    except TypeError:
        _fail(env, "players()", "must return an iterable of players", where, players)
    style = env.NumAgentStyle
    if isinstance(style, SingleAgent) and len(players) != 1:
        _fail(env, "players()", "must hold one player for a SINGLE_AGENT env", where, players)
    if isinstance(style, MultiAgent) and len(players) != style.n:
        _fail(env, "players()", f"must hold {style.n} players for NumAgentStyle {style!r}",
              where, players)
    return players


def _check_spaces(env, players, where):
    for player in _observers(env, players):
        args = () if player is None else (player,)
        label = "" if player is None else _show(player)
        for method in ("state_space", "action_space"):
            space = _call(env, method, where, *args)
            if not isinstance(space, spaces.Space):
                _fail(env, f"{method}({label})", "must return a gymnasium.spaces.Space", where,
                      space)


def _observers(env, players):
    """Whose state and reward to check: the default player, or every player of a multi-agent env."""
    return players if isinstance(env.NumAgentStyle, MultiAgent) else (None,)


# ----------------------------------------------------------------------------- per-step checks
def _check_now(env, players, where, fresh=False):
    """Check what can be observed now; return (terminated, truncated)."""
    terminated = _call(env, "is_terminated", where)
    if not _is_bool(terminated):
        _fail(env, "is_terminated()", "must return a bool", where, terminated)
    truncated = _call(env, "is_truncated", where)
    if not _is_bool(truncated):
        _fail(env, "is_truncated()", "must return a bool", where, truncated)
    if fresh and (terminated or truncated):
        _fail(env, "reset()", "must start an episode that is not over, but "
              f"is_terminated()={terminated} and is_truncated()={truncated}", where,
              show_value=False)
    for player in _observers(env, players):
        args = () if player is None else (player,)
        label = "" if player is None else _show(player)
        state = _call(env, "state", where, *args)
        space = _call(env, "state_space", where, *args)
        if not _contains(space, state):
            _fail(env, f"state({label})", f"is not in state_space({label}) {space}", where, state)
        reward = _call(env, "reward", where, *args)
        if not _is_real(reward):
            _fail(env, f"reward({label})", "must return a real number (not bool, not NaN)",
                  where, reward)
    if not (terminated or truncated):
        _check_current_player(env, players, where)
    return bool(terminated), bool(truncated)


def _check_current_player(env, players, where):
    if env.DynamicStyle is SIMULTANEOUS or isinstance(env.NumAgentStyle, SingleAgent):
        return
    player = _call(env, "current_player", where)
    chance = _call(env, "chance_player", where)
    if not (any(_equal(player, p) for p in players) or _equal(player, chance)):
        _fail(env, "current_player()", f"must be one of players() {_show(players)} or "
              "chance_player()", where, player)


def _legal_actions(env, where):
    """The legal actions now, checked against the action space and the mask."""
    action_space = _call(env, "action_space", where)
    legal = _call(env, "legal_action_space", where)
    if env.ActionStyle is MINIMAL_ACTION_SET:
        if isinstance(legal, spaces.Space) and legal != action_space:
            _fail(env, "legal_action_space()", f"must equal action_space() {action_space} "
                  "under MINIMAL_ACTION_SET", where, legal)
        if isinstance(action_space, spaces.Discrete):
            mask = np.asarray(_call(env, "legal_action_space_mask", where))
            if mask.shape != (action_space.n,) or mask.dtype != bool or not mask.all():
                _fail(env, "legal_action_space_mask()", f"must be {action_space.n} True values "
                      "under MINIMAL_ACTION_SET", where, mask)
        return legal
    if env.ActionStyle is not FULL_ACTION_SET:
        return legal
    if isinstance(legal, spaces.Discrete) and isinstance(action_space, spaces.Discrete):
        legal_ints = set(range(int(legal.start), int(legal.start) + int(legal.n)))
        outside = sorted(a for a in legal_ints if not action_space.contains(a))
    elif isinstance(legal, spaces.Space):
        legal_ints = None
        outside = [a for a in (sample_space(legal, np.random.default_rng(0)) for _ in range(8))
                   if not _contains(action_space, a)]
    else:
        try:
            legal = list(legal)
        except TypeError:
            _fail(env, "legal_action_space()", "must return a Space or an iterable of actions",
                  where, legal)
        legal_ints = None
        outside = [a for a in legal if not _contains(action_space, a)]
    if outside:
        _fail(env, "legal_action_space()", f"must be a subset of action_space() {action_space}",
              where, outside)
    if isinstance(legal, list) and not legal:
        _fail(env, "legal_action_space()", "is empty while the episode is not over", where, legal)
    if isinstance(action_space, spaces.Discrete):
        if legal_ints is None:
            legal_ints = {int(a) for a in legal}
        mask = _call(env, "legal_action_space_mask", where)
        array = np.asarray(mask)
        if array.shape != (action_space.n,) or array.dtype != bool:
            _fail(env, "legal_action_space_mask()", f"must be a bool array of shape "
                  f"({action_space.n},)", where, mask)
        from_mask = {int(action_space.start) + int(i) for i in np.flatnonzero(array)}
        if from_mask != legal_ints:
            _fail(env, "legal_action_space_mask()", "disagrees with legal_action_space() "
                  f"{_show(sorted(legal_ints))}", where, array)
    return legal


def _choose_action(env, players, rng, where):
    """Check the legal actions (and chance probabilities) now, and draw one at random."""
    legal = _legal_actions(env, where)
    probabilities = None
    if isinstance(env.ChanceStyle, ExplicitStochastic) and env.DynamicStyle is not SIMULTANEOUS:
        if _equal(_call(env, "current_player", where), _call(env, "chance_player", where)):
            probabilities = _chance_probabilities(env, where)
    if isinstance(legal, spaces.Space):
        if probabilities is not None and isinstance(legal, spaces.Discrete) \
                and len(probabilities) == legal.n:
            return int(legal.start) + int(rng.choice(legal.n, p=probabilities))
        return sample_space(legal, rng)
    legal = list(legal)
    if not legal:
        _fail(env, "legal_action_space()", "is empty while the episode is not over", where, legal)
    if probabilities is not None and len(probabilities) == len(legal):
        return legal[int(rng.choice(len(legal), p=probabilities))]
    return legal[int(rng.integers(len(legal)))]


def _chance_probabilities(env, where):
    raw = _call(env, "prob", where)
    try:
        p = np.asarray(list(raw.values()) if isinstance(raw, dict) else raw,
                       dtype=np.float64).ravel()
    except (TypeError, ValueError):
        _fail(env, "prob()", "must return probabilities (an array of floats)", where, raw)
    if p.size == 0 or not np.all(np.isfinite(p)) or np.any(p < 0) \
            or not math.isclose(p.sum(), 1.0, abs_tol=1e-6):
        _fail(env, "prob()", "must be non-negative probabilities that sum to 1", where, raw)
    return p / p.sum()


def _snapshot(env, players, where):
    observed = [copy.deepcopy(_call(env, "state", where, *(() if p is None else (p,))))
                for p in _observers(env, players)]
    return (observed, _call(env, "is_terminated", where), _call(env, "is_truncated", where),
            _call(env, "current_player", where))


def _check_illegal_refused(env, players, rng, where, out_of_space=True):
    """Illegal actions raise ValueError and leave the environment as it was.

    Tries actions outside the action space when ``out_of_space``, and, under FULL_ACTION_SET with
    a Discrete action space, an action of the space that the mask says is illegal now.
    """
    action_space = _call(env, "action_space", where)
    candidates = list(_out_of_space(action_space, rng)) if out_of_space else []
    if env.ActionStyle is FULL_ACTION_SET and isinstance(action_space, spaces.Discrete):
        mask = np.asarray(_call(env, "legal_action_space_mask", where))
        illegal = np.flatnonzero(~mask)
        if illegal.size:
            candidates.append(int(action_space.start) + int(rng.choice(illegal)))
    for action in candidates:
        before = _snapshot(env, players, where)
        try:
            env(action)
        except ValueError:
            pass
        except Exception as error:
            raise EnvInterfaceError(
                f"{_env_name(env)}: env({_show(action)}) with an illegal action must raise "
                f"ValueError, raised {type(error).__name__}: {error} ({where})") from error
        else:
            _fail(env, f"env({_show(action)})", f"accepted an action outside the legal actions "
                  f"(action_space() {action_space}) instead of raising ValueError", where,
                  show_value=False)
        if not _equal(before, _snapshot(env, players, where)):
            _fail(env, f"env({_show(action)})", "changed the environment while refusing an "
                  "illegal action", where, show_value=False)


def _rewards(env, players, where):
    return [_call(env, "reward", where, *(() if p is None else (p,)))
            for p in _observers(env, players)]


def _check_episode_rewards(env, players, totals, where):
    if not isinstance(env.NumAgentStyle, MultiAgent):
        return
    if env.UtilityStyle is ZERO_SUM and not math.isclose(sum(totals), 0.0, abs_tol=1e-6):
        _fail(env, "reward(player)", "totals over the episode must sum to 0 under ZERO_SUM",
              where, dict(zip(players, totals)))
    if env.UtilityStyle is IDENTICAL_UTILITY and \
            not all(math.isclose(t, totals[0], rel_tol=1e-9, abs_tol=1e-9) for t in totals):
        _fail(env, "reward(player)", "totals over the episode must be equal under "
              "IDENTICAL_UTILITY", where, dict(zip(players, totals)))


# ----------------------------------------------------------------------------- entry points
def _make_rng(rng, seed):
    return make_rng(rng, seed if (rng is not None or seed is not None) else 0)


def test_interfaces(env, n_episodes=3, max_episode_steps=10_000, rng=None, seed=None):
    """Check that ``env`` implements the environment interface consistently; raise otherwise.

    Checks the traits (each a value of its trait class from :mod:`rlcore.envs.traits`, the
    constants themselves), ``players()`` against ``NumAgentStyle``, that the spaces are Gymnasium
    spaces; then plays ``n_episodes`` episodes of at most ``max_episode_steps`` random legal
    actions (drawn with ``rng`` or ``seed``, seed 0 by default) and after ``reset()`` and every
    step checks: ``state(p)`` in ``state_space(p)`` and ``reward(p)`` a real number for each
    player ``p`` (the default player of a single-agent env), ``is_terminated()`` and
    ``is_truncated()`` bools, ``current_player()`` a player or chance; legal actions a subset of
    the action space agreeing with ``legal_action_space_mask()`` (FULL_ACTION_SET) or the whole
    space (MINIMAL_ACTION_SET); ``prob()`` summing to 1 at chance nodes (EXPLICIT_STOCHASTIC);
    illegal actions refused with ``ValueError``, leaving the env unchanged (actions outside the
    action space every 10 steps, illegal ones inside it every step); TERMINAL_REWARD envs giving no reward before the end; ZERO_SUM and
    IDENTICAL_UTILITY totals; and that ``reset()`` after the end starts an episode that is not
    over. Leaves ``env`` reset. Raises :class:`EnvInterfaceError` naming the method and value.
    Example: ``test_interfaces(MyEnv(), seed=1)`` in a test of ``MyEnv``.
    """
    rng = _make_rng(rng, seed)
    where = "before any reset()"
    _check_traits(env)
    players = _players(env, where)
    _check_spaces(env, players, where)
    for episode in range(1, n_episodes + 1):
        where = f"after reset() of episode {episode}"
        _call(env, "reset", where)
        _check_now(env, players, where, fresh=True)
        totals = [0.0] * len(_observers(env, players))
        for step in range(max_episode_steps):
            action = _choose_action(env, players, rng, where)
            _check_illegal_refused(env, players, rng, where,
                                   out_of_space=step % _CHECK_ILLEGAL_EVERY == 0)
            _call(env, "__call__", where, action)
            where = f"after step {step + 1} of episode {episode}, action {_show(action)}"
            terminated, truncated = _check_now(env, players, where)
            rewards = _rewards(env, players, where)
            totals = [t + float(r) for t, r in zip(totals, rewards)]
            if env.RewardStyle is TERMINAL_REWARD and not terminated and any(rewards):
                _fail(env, "reward()", "must be 0 before the end of the episode under "
                      "TERMINAL_REWARD", where, rewards)
            if terminated or truncated:
                _check_episode_rewards(env, players, totals, where)
                break
    _call(env, "reset", "final reset()")
    _check_now(env, players, "after the final reset()", fresh=True)


def test_runnable(env, n_steps=1000, rng=None, seed=None):
    """Step ``env`` with a random legal policy for ``n_steps`` steps, resetting at episode ends.

    Actions are drawn with ``rng`` or ``seed`` (seed 0 by default). After every ``reset()`` and
    every step it checks that states lie in their spaces, rewards are real numbers, the episode
    flags are bools and, at chance nodes of EXPLICIT_STOCHASTIC envs, that ``prob()`` sums to 1.
    Leaves ``env`` reset and returns the number of episodes that ended. Raises
    :class:`EnvInterfaceError` naming the method and value. Example:
    ``assert test_runnable(MyEnv(), n_steps=1000, seed=1) > 0``.
    """
    rng = _make_rng(rng, seed)
    players = _players(env, "before any reset()")
    episodes, episode_step = 0, 0
    where = "after the first reset()"
    _call(env, "reset", where)
    done = any(_check_now(env, players, where, fresh=True))
    for step in range(1, n_steps + 1):
        if done:
            episodes += 1
            episode_step = 0
            where = f"after reset() at step {step}"
            _call(env, "reset", where)
            _check_now(env, players, where, fresh=True)
        action = _choose_action(env, players, rng, where)
        _call(env, "__call__", where, action)
        episode_step += 1
        where = f"after step {step} ({episode_step} of episode {episodes + 1}), " \
                f"action {_show(action)}"
        done = any(_check_now(env, players, where))
    episodes += done
    _call(env, "reset", "final reset()")
    return episodes


# Users import these into test modules; pytest must not collect them as tests.
test_interfaces.__test__ = False
test_runnable.__test__ = False
