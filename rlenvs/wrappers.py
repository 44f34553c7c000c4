"""Environment wrappers, after ReinforcementLearning.jl's ``RLBase`` wrappers.

A wrapper holds an environment in ``inner`` and forwards the whole interface (every method of
docs/architecture.md §2 and every trait) to it, changing one thing. ``innermost`` is the
environment at the bottom of a stack of wrappers. Attributes a wrapper does not define are
looked up on ``inner``, so ``CartPoleEnv().gym_env`` works through any stack.

| wrapper | changes |
|---|---|
| :class:`StateTransformedEnv` | ``state()`` and ``state_space()`` |
| :class:`ActionTransformedEnv` | ``env(action)`` and ``action_space()`` |
| :class:`ClipActionEnv` | a Box action is clipped into the bounds; the action space unbounded |
| :class:`RewardTransformedEnv` | ``reward()`` (a function of the inner reward) |
| :class:`RewardOverriddenEnv` | ``reward()`` (a function of the inner env) |
| :class:`StateCachedEnv` | ``state()`` computed once per step |
| :class:`MaxTimeoutEnv` | truncates the episode after ``max_t`` steps |
| :class:`DefaultStateStyleEnv` | which ``StateStyle`` ``state()`` returns |
| :class:`StochasticEnv` | chance nodes are sampled, the chance player disappears |
| :class:`SequentialEnv` | a simultaneous game becomes a sequential one |

Environments with several state styles take ``state(player=None, style=None)``; wrappers pass
``style`` on when it is given.

Example::

    >>> from rlenvs import RandomWalk1D
    >>> from rlenvs.wrappers import MaxTimeoutEnv, RewardTransformedEnv
    >>> env = RewardTransformedEnv(MaxTimeoutEnv(RandomWalk1D(), max_t=5),
    ...                            reward_mapping=lambda r: 2 * r)
    >>> env.innermost
    RandomWalk1D(N=7, start_pos=3, rewards=(-1.0, 1.0), actions=(-1, 1))
"""

import numpy as np
from gymnasium import spaces

from rlcore.envs import (
    SEQUENTIAL, SIMULTANEOUS, STOCHASTIC, AbstractEnv, ExplicitStochastic, FullActionSet,
    check_action_in_space,
)
from rlcore.envs.wrapper import AbstractEnvWrapper, styled_state, styled_state_space
from rlcore.utils.random import make_rng

__all__ = [
    "AbstractEnvWrapper", "StateTransformedEnv", "ActionTransformedEnv", "ClipActionEnv",
    "RewardTransformedEnv",
    "RewardOverriddenEnv", "StateCachedEnv", "MaxTimeoutEnv", "DefaultStateStyleEnv",
    "StochasticEnv", "SequentialEnv",
]


def _identity(x):
    return x


class StateTransformedEnv(AbstractEnvWrapper):
    """``state()`` is ``state_mapping(inner.state())``; ``state_space()`` is
    ``state_space_mapping(inner.state_space())``.

    Keyword arguments: ``state_mapping=identity``, ``state_space_mapping=identity``.

    >>> from rlenvs import RandomWalk1D
    >>> env = StateTransformedEnv(RandomWalk1D(), state_mapping=lambda s: s * 10,
    ...     state_space_mapping=lambda space: spaces.Discrete(70))
    >>> env.reset(); env.state()
    30
    """

    def __init__(self, env, *, state_mapping=_identity, state_space_mapping=_identity):
        super().__init__(env)
        self.state_mapping = state_mapping
        self.state_space_mapping = state_space_mapping

    def state(self, player=None, style=None):
        return self.state_mapping(styled_state(self.inner, player, style))

    def state_space(self, player=None, style=None):
        return self.state_space_mapping(styled_state_space(self.inner, player, style))


class ActionTransformedEnv(AbstractEnvWrapper):
    """``env(action)`` applies ``inner(action_mapping(action))``; ``action_space()`` is
    ``action_space_mapping(inner.action_space())``.

    The action is checked against the mapped space before it is mapped (``ValueError`` naming
    both). Under FULL_ACTION_SET the legal actions must stay consistent with the mask: by default
    ``legal_action_space()`` and ``legal_action_space_mask()`` are the inner ones, so the mapping
    must keep action indices (e.g. it only changes the space's type or what an index does).
    Otherwise pass ``legal_action_mapping``, a function from the inner legal actions (a list) to
    the outer ones; the mask is then built from them over the mapped (Discrete) space.

    Keyword arguments: ``action_mapping=identity``, ``action_space_mapping=identity``,
    ``legal_action_mapping=None``.

    >>> import numpy as np
    >>> from rlenvs import PendulumEnv
    >>> torques = np.linspace(-2.0, 2.0, 5, dtype=np.float32)
    >>> env = ActionTransformedEnv(PendulumEnv(seed=0), action_mapping=lambda a: torques[a:a + 1],
    ...                            action_space_mapping=lambda space: spaces.Discrete(5))
    >>> env.reset(); env(4); env.action_space()
    Discrete(5)
    """

    def __init__(self, env, *, action_mapping=_identity, action_space_mapping=_identity,
                 legal_action_mapping=None):
        super().__init__(env)
        if legal_action_mapping is not None and not callable(legal_action_mapping):
            raise TypeError(f"legal_action_mapping must be callable or None, got "
                            f"{legal_action_mapping!r}")
        self.action_mapping = action_mapping
        self.action_space_mapping = action_space_mapping
        self.legal_action_mapping = legal_action_mapping
        self._spaces = {}

    def action_space(self, player=None):
        # Mapped once per inner space object: the space is asked for at every step.
        inner = self.inner.action_space(player)
        key = id(inner)
        cached = self._spaces.get(key)
        if cached is None or cached[0] is not inner:
            cached = (inner, self.action_space_mapping(inner))
            self._spaces[key] = cached
        return cached[1]

    def legal_action_space(self, player=None):
        if not isinstance(self.ActionStyle, FullActionSet):
            return self.action_space(player)
        legal = self.inner.legal_action_space(player)
        return legal if self.legal_action_mapping is None else self.legal_action_mapping(legal)

    def legal_action_space_mask(self, player=None):
        if not isinstance(self.ActionStyle, FullActionSet):
            return AbstractEnv.legal_action_space_mask(self, player)
        if self.legal_action_mapping is None:
            return self.inner.legal_action_space_mask(player)
        space = self.action_space(player)
        if not isinstance(space, spaces.Discrete):
            raise TypeError(f"{type(self).__name__}: a mask needs a Discrete action space, "
                            f"got {space}")
        mask = np.zeros(space.n, dtype=bool)
        legal = np.asarray(list(self.legal_action_space(player)), dtype=np.int64)
        mask[legal - int(space.start)] = True
        return mask

    def __call__(self, action):
        if isinstance(self.ActionStyle, FullActionSet):
            self.check_action(action)
        else:
            check_action_in_space(action, self.action_space())
        self.inner(self.action_mapping(action))


class ClipActionEnv(AbstractEnvWrapper):
    """A Box-action environment that takes any real action and clips it into the inner bounds:
    ``action_space()`` is the inner Box with infinite bounds, ``env(a)`` applies
    ``inner(clip(a, low, high))``.

    For Gaussian policies (PPO, TRPO on continuous control): the policy's unclipped sample is
    the action recorded and learned from, the environment receives it clipped (Gymnasium's
    ``ClipAction`` wrapper, as CleanRL and Stable-Baselines3 do). A NaN action still raises;
    ±inf is clipped to the bound.

    >>> from rlenvs import PendulumEnv
    >>> env = ClipActionEnv(PendulumEnv(seed=0))
    >>> env.reset(); env(np.array([5.0], np.float32)); env.action_space()
    Box(-inf, inf, (1,), float32)
    """

    def __init__(self, env):
        super().__init__(env)
        inner = env.action_space()
        if not isinstance(inner, spaces.Box):
            raise TypeError(f"ClipActionEnv needs a Box action space, got {inner}")
        self.low, self.high = inner.low, inner.high
        self._space = spaces.Box(-np.inf, np.inf, inner.shape, inner.dtype)

    def action_space(self, player=None):
        return self._space

    def __call__(self, action):
        action = np.asarray(action, dtype=self._space.dtype)
        if action.shape != self._space.shape or np.isnan(action).any():
            raise ValueError(f"{type(self).__name__}: the action must be an array of shape "
                             f"{self._space.shape} without NaN (±inf is clipped), got "
                             f"{action!r}")
        self.inner(np.clip(action, self.low, self.high))


class RewardTransformedEnv(AbstractEnvWrapper):
    """``reward(player)`` is ``reward_mapping(inner.reward(player))`` (e.g. clipping).

    Keyword argument: ``reward_mapping=identity``.

    >>> from rlenvs import CartPoleEnv
    >>> env = RewardTransformedEnv(CartPoleEnv(seed=0), reward_mapping=lambda r: r / 100)
    """

    def __init__(self, env, *, reward_mapping=_identity):
        super().__init__(env)
        self.reward_mapping = reward_mapping

    def reward(self, player=None):
        return self.reward_mapping(self.inner.reward(player))


class RewardOverriddenEnv(AbstractEnvWrapper):
    """``reward(player)`` is ``reward_function(inner)`` (or ``reward_function(inner, player)`` for
    a multi-agent environment): a reward computed from the whole inner environment.

    >>> from rlenvs import RandomWalk1D
    >>> env = RewardOverriddenEnv(RandomWalk1D(), lambda e: -1.0)  # a cost per step
    """

    def __init__(self, env, reward_function):
        super().__init__(env)
        if not callable(reward_function):
            raise TypeError(f"reward_function must be callable, got {reward_function!r}")
        self.reward_function = reward_function

    def reward(self, player=None):
        if player is None:
            return self.reward_function(self.inner)
        return self.reward_function(self.inner, player)


class StateCachedEnv(AbstractEnvWrapper):
    """Computes ``state(player, style)`` once after each ``reset()`` or step and returns the cached
    value until the next one: for environments whose state is expensive to build.

    >>> from rlenvs import RandomWalk1D
    >>> env = StateCachedEnv(RandomWalk1D()); env.reset(); env.state()
    3
    """

    def __init__(self, env):
        super().__init__(env)
        self._cache = {}

    def reset(self):
        self._cache.clear()
        self.inner.reset()

    def __call__(self, action):
        self.inner(action)
        self._cache.clear()

    def state(self, player=None, style=None):
        key = (player, style)
        try:
            return self._cache[key]
        except KeyError:
            value = self._cache[key] = styled_state(self.inner, player, style)
            return value
        except TypeError:  # an unhashable player: no caching
            return styled_state(self.inner, player, style)


class MaxTimeoutEnv(AbstractEnvWrapper):
    """Truncates the episode after ``max_t`` steps: ``is_truncated()`` becomes true, while
    ``is_terminated()`` stays the inner one (a time limit is not a terminal state).

    Keyword argument: ``max_t`` (positive int). ``t`` counts the steps of the current episode.

    >>> from rlenvs import RandomWalk1D
    >>> env = MaxTimeoutEnv(RandomWalk1D(actions=(0,)), max_t=2)
    >>> env.reset(); env(0); env(0); env.is_truncated(), env.is_terminated()
    (True, False)
    """

    def __init__(self, env, max_t):
        super().__init__(env)
        if not isinstance(max_t, (int, np.integer)) or isinstance(max_t, bool) or max_t < 1:
            raise ValueError(f"max_t must be a positive int, got max_t={max_t!r}")
        self.max_t = int(max_t)
        self.t = 0

    def reset(self):
        self.t = 0
        self.inner.reset()

    def __call__(self, action):
        if self.t >= self.max_t and not self.inner.is_terminated():
            raise RuntimeError(f"{self!r} was truncated after {self.t} steps; call reset() "
                               "before acting")
        self.inner(action)
        self.t += 1

    def is_truncated(self):
        return self.inner.is_truncated() or (self.t >= self.max_t
                                             and not self.inner.is_terminated())

    def __repr__(self):
        return f"MaxTimeoutEnv({self.inner!r}, max_t={self.max_t})"


class DefaultStateStyleEnv(AbstractEnvWrapper):
    """Makes ``style`` (one of the inner env's ``StateStyle`` values) the style ``state()``
    returns by default; ``StateStyle`` lists it first.

    >>> from rlcore.envs import INTERNAL_STATE
    >>> from rlenvs import TigerProblemEnv
    >>> env = DefaultStateStyleEnv(TigerProblemEnv(seed=0), INTERNAL_STATE)
    >>> env.reset(); env.state() == env.tiger
    True
    """

    def __init__(self, env, style):
        super().__init__(env)
        inner_styles = env.StateStyle if isinstance(env.StateStyle, tuple) else (env.StateStyle,)
        if style not in inner_styles:
            raise ValueError(f"style {style!r} is not one of {type(env).__name__}'s state styles "
                             f"{inner_styles}")
        self.style = style
        self._styles = (style,) + tuple(s for s in inner_styles if s is not style)

    @property
    def StateStyle(self):
        return self._styles

    def _inner_style(self, style):
        # The inner env's own default needs no keyword (single-style envs take none).
        style = self.style if style is None else style
        return None if style is self.inner.DefaultStateStyle else style

    def state(self, player=None, style=None):
        return styled_state(self.inner, player, self._inner_style(style))

    def state_space(self, player=None, style=None):
        return styled_state_space(self.inner, player, self._inner_style(style))

    def __repr__(self):
        return f"DefaultStateStyleEnv({self.inner!r}, {self.style!r})"


class StochasticEnv(AbstractEnvWrapper):
    """Samples the chance player's actions of an EXPLICIT_STOCHASTIC environment from ``prob()``
    with ``rng``, so users of the wrapped env never see a chance node: after ``reset()`` and after
    every action, chance acts until a real player is to move or the episode is over.
    ``ChanceStyle`` becomes STOCHASTIC.

    Chance actions are indices of the chance player's Discrete action space, drawn with the
    probabilities of ``prob()`` (one per action of that space).

    Keyword arguments: ``rng``/``seed``.

    >>> from rlenvs import KuhnPokerEnv
    >>> env = StochasticEnv(KuhnPokerEnv(), seed=0)
    >>> env.reset(); env.current_player()
    'player_0'
    """

    ChanceStyle = STOCHASTIC

    def __init__(self, env, *, rng=None, seed=None):
        super().__init__(env)
        if not isinstance(env.ChanceStyle, ExplicitStochastic):
            raise ValueError(f"StochasticEnv needs an EXPLICIT_STOCHASTIC environment; "
                             f"{type(env).__name__} has ChanceStyle {env.ChanceStyle!r}")
        self.rng = make_rng(rng, seed)

    def _resolve_chance(self):
        inner = self.inner
        chance = inner.chance_player()
        while not (inner.is_terminated() or inner.is_truncated()) \
                and inner.current_player() == chance:
            space = inner.action_space(chance)
            p = np.asarray(inner.prob(chance), dtype=np.float64)
            if not isinstance(space, spaces.Discrete) or p.shape != (space.n,):
                raise ValueError(f"{type(inner).__name__}.prob() must give one probability per "
                                 f"action of the chance player's space {space}, got {p}")
            inner(int(space.start) + int(self.rng.choice(space.n, p=p / p.sum())))

    def reset(self):
        self.inner.reset()
        self._resolve_chance()

    def __call__(self, action):
        self.inner(action)
        self._resolve_chance()

    def prob(self, player=None):
        raise TypeError(f"{self!r} samples its chance nodes; it has no chance player to ask "
                        "prob() of")


class SequentialEnv(AbstractEnvWrapper):
    """Turns a SIMULTANEOUS game into a SEQUENTIAL one: the players choose in the order of
    ``players()``; the choices are kept until the last player has chosen, then applied together
    to the inner game as one joint action. Between those, ``reward()`` is 0 for everyone.

    ``action_space()`` and ``legal_action_space()`` are those of ``current_player()``;
    ``DynamicStyle`` becomes SEQUENTIAL. The players choosing later do not see the earlier
    choices (the inner state only changes when the joint action is applied), so the game keeps
    its information structure.

    >>> from rlenvs import RockPaperScissorsEnv
    >>> env = SequentialEnv(RockPaperScissorsEnv()); env.reset()
    >>> env(0); env(1); env.reward(env.players()[1])
    1.0
    """

    DynamicStyle = SEQUENTIAL

    def __init__(self, env):
        super().__init__(env)
        if env.DynamicStyle is not SIMULTANEOUS:
            raise ValueError(f"SequentialEnv needs a SIMULTANEOUS game; {type(env).__name__} "
                             f"has DynamicStyle {env.DynamicStyle!r}")
        self._order = tuple(env.players())
        self._actions = []
        self._reward_ready = False

    def reset(self):
        self._actions = []
        self._reward_ready = False
        self.inner.reset()

    def current_player(self):
        return self._order[len(self._actions)]

    def action_space(self, player=None):
        return self.inner.action_space(self.current_player() if player is None else player)

    def legal_action_space(self, player=None):
        return self.inner.legal_action_space(self.current_player() if player is None else player)

    def legal_action_space_mask(self, player=None):
        return self.inner.legal_action_space_mask(
            self.current_player() if player is None else player)

    def __call__(self, action):
        if self.is_terminated() or self.is_truncated():
            raise RuntimeError(f"the episode of {self!r} is over; call reset() before acting")
        self.check_action(action, self.current_player())
        if len(self._actions) + 1 == len(self._order):
            # The choices are kept until the inner step succeeds: if it raises, the last player
            # is still to choose and the earlier choices stand.
            self.inner(tuple(self._actions) + (action,))
            self._actions = []
            self._reward_ready = True
        else:
            self._actions.append(action)
            self._reward_ready = False

    def reward(self, player=None):
        if not self._reward_ready:
            return 0.0
        return self.inner.reward(self.current_player() if player is None else player)

    def check_action(self, action, player=None):
        space = self.inner.legal_action_space(self.current_player() if player is None else player)
        if isinstance(space, spaces.Space):
            check_action_in_space(action, space)
        elif action not in space:
            raise ValueError(f"action {action!r} is not in the legal actions {space}")

