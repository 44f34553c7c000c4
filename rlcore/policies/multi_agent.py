"""Multi-agent policies and hooks, after RL.jl's ``MultiAgentManager`` and ``MultiAgentHook``.

* :class:`MultiAgentPolicy`: one policy per player (sequential and simultaneous games);
* :class:`MultiAgentHook`: one hook per player, each seeing the game as its player does;
* :class:`PlayerView`: a multi-agent environment as one player sees it;
* :class:`ChancePolicy`: plays the chance player by sampling ``env.prob()``.

Chance nodes are either played by a :class:`ChancePolicy` (sampled outcomes, as here), hidden by
:class:`rlenvs.StochasticEnv`, or enumerated with their explicit probabilities by the game-tree
tools of :mod:`rlzoo.multi_agent.game_tree`.
"""

import attrs
import numpy as np

from rlcore.dispatch import dispatch, update
from rlcore.envs import SIMULTANEOUS, AbstractEnv
from rlcore.envs.wrapper import AbstractEnvWrapper
from rlcore.hooks import AbstractHook
from rlcore.policies.base import AbstractPolicy
from rlcore.stages import (
    POST_ACT_STAGE, AbstractStage, PostActStage, PostExperimentStage, PreActStage, PreEpisodeStage,
)
from rlcore.utils.random import make_rng

__all__ = ["MultiAgentPolicy", "MultiAgentHook", "PlayerView", "ChancePolicy"]


class PlayerView(AbstractEnvWrapper):
    """A multi-agent environment as ``player`` sees it: ``state()``, ``state_space()``,
    ``reward()``, ``action_space()``, ``legal_action_space()`` and ``legal_action_space_mask()``
    default to ``player`` instead of the current player. Acting goes to the whole environment.

    It lets single-agent policies, hooks and trajectories serve one player of a game.

    >>> from rlenvs import TicTacToeEnv
    >>> view = PlayerView(TicTacToeEnv(), "nought")
    >>> view.reset(); view.reward()
    0.0
    """

    def __init__(self, env, player):
        super().__init__(env)
        if player not in env.players():
            raise ValueError(f"player {player!r} is not one of {env.players()}")
        self.player = player
        self.reward_override = None

    def _p(self, player):
        return self.player if player is None else player

    def state(self, player=None, style=None):
        player = self._p(player)
        return self.inner.state(player) if style is None else self.inner.state(player, style=style)

    def state_space(self, player=None, style=None):
        player = self._p(player)
        return self.inner.state_space(player) if style is None \
            else self.inner.state_space(player, style=style)

    def reward(self, player=None):
        """``player``'s reward from the last transition; while ``reward_override`` is set (by
        :class:`MultiAgentPolicy`, for a delayed transition), that value for the own player."""
        if player is None and self.reward_override is not None:
            return self.reward_override
        return self.inner.reward(self._p(player))

    def action_space(self, player=None):
        return self.inner.action_space(self._p(player))

    def legal_action_space(self, player=None):
        return self.inner.legal_action_space(self._p(player))

    def legal_action_space_mask(self, player=None):
        return self.inner.legal_action_space_mask(self._p(player))

    def __repr__(self):
        return f"PlayerView({self.inner!r}, {self.player!r})"


@attrs.define
class MultiAgentPolicy(AbstractPolicy):
    """A policy per player: ``policies`` maps each player of the environment (and, optionally,
    its chance player) to a policy.

    In a SEQUENTIAL game ``policy(env)`` asks the current player's policy; in a SIMULTANEOUS game
    it asks every player's policy and returns the tuple of their actions (in the order of
    ``players()``). Each policy sees the environment through a :class:`PlayerView` of its
    player. Chance nodes need a policy for ``env.chance_player()`` here, or the environment
    wrapped in :class:`rlenvs.StochasticEnv`.

    Stages: episode and experiment stages reach every player's policy. In a SIMULTANEOUS game
    every player receives ``PRE_ACT`` (with its own part of the joint action) and ``POST_ACT``.
    In a SEQUENTIAL game a player's transition runs from its action to its next turn (or the end
    of the episode), as PettingZoo's cumulative rewards do: ``PRE_ACT`` reaches the player who
    acts, and its ``POST_ACT`` is delayed until then, its view's ``reward()`` being the sum of
    what it received in between (so a player who loses on the opponent's move records the loss).
    A chance policy (a :class:`ChancePolicy`) gets its PRE_ACT and POST_ACT at once and no
    episode or experiment stage: give chance a policy that does not learn.

    >>> from rlcore import RandomPolicy, run, StopAfterEpisode
    >>> from rlenvs import TicTacToeEnv
    >>> policy = MultiAgentPolicy({"cross": RandomPolicy(seed=0), "nought": RandomPolicy(seed=1)})
    >>> _ = run(policy, TicTacToeEnv(), StopAfterEpisode(3))
    """

    policies: dict = attrs.field()
    _env: object = attrs.field(default=None, init=False, repr=False, eq=False)
    _views: dict = attrs.field(factory=dict, init=False, repr=False, eq=False)
    _last_actors: tuple = attrs.field(default=(), init=False, repr=False, eq=False)
    # Sequential games: the players with an open transition and the reward it has collected.
    _pending: dict = attrs.field(factory=dict, init=False, repr=False, eq=False)

    @policies.validator
    def _check_policies(self, attribute, policies):
        if not isinstance(policies, dict) or not policies:
            raise TypeError(f"policies must be a non-empty dict player -> policy, got {policies!r}")
        for player, policy in policies.items():
            if not callable(policy):
                raise TypeError(f"the policy of {player!r} must be callable, got {policy!r}")

    def __getitem__(self, player):
        return self.policies[player]

    def view(self, env, player):
        """The :class:`PlayerView` of ``player`` on ``env`` (built once per environment)."""
        if env is not self._env:
            missing = [p for p in env.players() if p not in self.policies]
            if missing:
                raise ValueError(f"MultiAgentPolicy has no policy for players {missing} of "
                                 f"{env!r}; it has {list(self.policies)}")
            self._env = env
            self._views = {p: PlayerView(env, p) for p in env.players()}
        view = self._views.get(player)
        return env if view is None else view  # the chance player acts on the env itself

    def _policy(self, env, player):
        try:
            return self.policies[player]
        except KeyError:
            raise ValueError(f"{env!r}: {player!r} is to act and MultiAgentPolicy has no policy "
                             f"for it; wrap the env in rlenvs.StochasticEnv to sample chance "
                             f"nodes, or add a policy for {player!r}") from None

    def __call__(self, env):
        if env.DynamicStyle is SIMULTANEOUS:
            return tuple(self.policies[p](self.view(env, p)) for p in env.players())
        player = env.current_player()
        return self._policy(env, player)(self.view(env, player))

    def action_probabilities(self, env, player=None):
        """``player``'s (default: the current player's) distribution over its action space at
        this state, from its policy's ``action_probabilities(view, player)`` (game policies such
        as CFR's average policy have one; it is what :func:`rlzoo.multi_agent.nash_conv`
        evaluates)."""
        player = env.current_player() if player is None else player
        policy = self._policy(env, player)
        if not hasattr(policy, "action_probabilities"):
            raise TypeError(f"the policy of {player!r}, {type(policy).__name__}, has no "
                            "action_probabilities(env, player); a game policy needs one")
        # a view of another env (a game tree's copy) must not replace the running env's views
        view = self.view(env, player) if env is self._env else PlayerView(env, player)
        return policy.action_probabilities(view, player)


def _flush(policy, env, players):
    """Close the open transitions of ``players``: POST_ACT with their collected rewards."""
    for player in players:
        reward = policy._pending.pop(player, None)
        if reward is None:
            continue
        view = policy.view(env, player)
        view.reward_override = reward
        try:
            update(policy.policies[player], view, POST_ACT_STAGE)
        finally:
            view.reward_override = None


@dispatch(MultiAgentPolicy, AbstractEnv, AbstractStage)
def update(policy, env, stage):  # noqa: F811
    for player in env.players():
        update(policy.policies[player], policy.view(env, player), stage)


@dispatch(MultiAgentPolicy, AbstractEnv, PreEpisodeStage)
def update(policy, env, stage):  # noqa: F811
    policy._pending.clear()
    for player in env.players():
        update(policy.policies[player], policy.view(env, player), stage)


@dispatch(MultiAgentPolicy, AbstractEnv, PostExperimentStage)
def update(policy, env, stage):  # noqa: F811
    _flush(policy, env, list(policy._pending))  # a run stopped mid-episode
    for player in env.players():
        update(policy.policies[player], policy.view(env, player), stage)


@dispatch(MultiAgentPolicy, AbstractEnv, PreActStage, object)
def update(policy, env, stage, action):  # noqa: F811
    if env.DynamicStyle is SIMULTANEOUS:
        policy._last_actors = tuple(env.players())
        for player, a in zip(env.players(), action):
            update(policy.policies[player], policy.view(env, player), stage, a)
        return
    player = env.current_player()
    player_policy = policy._policy(env, player)
    policy._last_actors = (player,)
    if player in policy._views:
        _flush(policy, env, [player])
        policy._pending[player] = 0.0
    update(player_policy, policy.view(env, player), stage, action)


@dispatch(MultiAgentPolicy, AbstractEnv, PostActStage)
def update(policy, env, stage):  # noqa: F811
    if env.DynamicStyle is SIMULTANEOUS:
        for player in policy._last_actors:
            update(policy.policies[player], policy.view(env, player), stage)
        return
    for player in policy._pending:
        policy._pending[player] += float(env.reward(player))
    for player in policy._last_actors:
        if player not in policy._views:  # chance: its transition closes at once
            update(policy.policies[player], env, stage)
    if env.is_terminated() or env.is_truncated():
        _flush(policy, env, list(policy._pending))
    else:
        # The player to act next has reached its next turn: its transition ends here, before
        # it chooses its action, so a learner that learns at POST_ACT (PPO) acts with what it
        # has just learned, as in a single-agent run.
        _flush(policy, env, [env.current_player()])


@attrs.define(eq=False)
class ChancePolicy(AbstractPolicy):
    """Plays the chance player of an EXPLICIT_STOCHASTIC environment: samples an action from
    ``env.prob()`` with ``rng`` (or ``seed``).

    >>> from rlenvs import KuhnPokerEnv
    >>> from rlcore import RandomPolicy, run, StopAfterEpisode
    >>> env = KuhnPokerEnv()
    >>> players = {p: RandomPolicy(seed=i) for i, p in enumerate(env.players())}
    >>> _ = run(MultiAgentPolicy({**players, env.chance_player(): ChancePolicy(seed=0)}), env,
    ...         StopAfterEpisode(2))
    """

    rng: object = attrs.field(default=None)
    seed: object = attrs.field(default=None, repr=False)

    def __attrs_post_init__(self):
        self.rng = make_rng(self.rng, self.seed)

    def __call__(self, env):
        p = np.asarray(env.prob(), dtype=np.float64)
        if p.ndim != 1 or not np.all(p >= 0) or not np.isclose(p.sum(), 1.0):
            raise ValueError(f"{env!r}: prob() must be a probability vector over the chance "
                             f"player's actions, got {p!r}")
        return int(self.rng.choice(len(p), p=p))

    def action_probabilities(self, env, player=None):
        """The chance player's distribution, ``env.prob()``."""
        return np.asarray(env.prob(), dtype=np.float64)


@attrs.define(eq=False)
class MultiAgentHook(AbstractHook):
    """One hook per player: ``hooks`` maps players to hooks, each called with that player's
    policy and its :class:`PlayerView` of the environment, so single-agent hooks
    (``TotalRewardPerEpisode``, ``StepsPerEpisode``, a logger) keep one player's record.

    Stages: experiment and episode stages and every ``POST_ACT`` reach every player's hook (its
    view's ``reward()`` is its own reward from that step); ``PRE_ACT`` reaches the hooks of the
    players who act, with their own action (in a simultaneous game, their part of the joint
    action). Works with a :class:`MultiAgentPolicy`.

    >>> from rlcore import RandomPolicy, StopAfterEpisode, TotalRewardPerEpisode, run
    >>> from rlenvs import TicTacToeEnv
    >>> env = TicTacToeEnv()
    >>> policy = MultiAgentPolicy({p: RandomPolicy(seed=i) for i, p in enumerate(env.players())})
    >>> hook = run(policy, env, StopAfterEpisode(10),
    ...            MultiAgentHook({p: TotalRewardPerEpisode() for p in env.players()}))
    >>> [len(hook[p].rewards) for p in env.players()]
    [10, 10]
    """

    hooks: dict = attrs.field()

    @hooks.validator
    def _check_hooks(self, attribute, hooks):
        if not isinstance(hooks, dict) or not hooks:
            raise TypeError(f"hooks must be a non-empty dict player -> hook, got {hooks!r}")
        for player, hook in hooks.items():
            if not isinstance(hook, AbstractHook):
                raise TypeError(f"the hook of {player!r} must be an rlcore AbstractHook, got "
                                f"{hook!r}")

    def __getitem__(self, player):
        return self.hooks[player]

    def __call__(self, stage, policy, env, *action):
        if not isinstance(policy, MultiAgentPolicy):
            raise TypeError(f"MultiAgentHook works with a MultiAgentPolicy, got "
                            f"{type(policy).__name__}")
        if not action:
            for player, hook in self.hooks.items():
                hook(stage, policy._policy(env, player), policy.view(env, player))
            return
        (action,) = action
        if env.DynamicStyle is SIMULTANEOUS:
            acting = dict(zip(env.players(), action))
        else:
            acting = {env.current_player(): action}
        for player, a in acting.items():
            if player in self.hooks:
                hook = self.hooks[player]
                hook(stage, policy._policy(env, player), policy.view(env, player), a)

