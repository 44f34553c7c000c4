"""Independent learners: one single-agent learner per player of a game, each treating the other
players as part of its environment, and their evaluation against a fixed opponent.

References: Tan (1993), "Multi-Agent Reinforcement Learning: Independent vs. Cooperative Agents"
(ICML; independent Q-learners); Tampuu et al. (2017), "Multiagent cooperation and competition
with deep reinforcement learning" (https://arxiv.org/abs/1511.08779; independent DQN);
de Witt et al. (2020), "Is Independent Learning All You Need in the StarCraft Multi-Agent
Challenge?" (https://arxiv.org/abs/2011.09533; independent PPO); OpenSpiel's independent DQN and
policy-gradient agents on its games (Lanctot et al. 2019, https://arxiv.org/abs/1908.09453).

Nothing here changes a learner: an independent learner is an ordinary ``Agent`` (a DQN or PPO
policy and its trajectory) of one player inside a :class:`rlcore.MultiAgentPolicy`, which sees
the game through a :class:`rlcore.PlayerView` of its player. In a SEQUENTIAL game the
``MultiAgentPolicy`` cuts each player's experience into its own transitions: a transition runs
from the player's action to its next turn (or the end of the episode), its reward is the sum of
what the player received in between (a loss on the opponent's move included), its next state
is the state at the player's next turn, and the legal-action mask a trajectory records is the
player's own at its turn. A player's learner therefore counts only its own steps (its
``RolloutSchedule`` rollouts, its ``ReplaySchedule`` warm-up, its ε decay), and ``gamma``
discounts once per own move. In a game whose legal actions change (FULL_ACTION_SET) each
trajectory needs a ``legal_actions_mask`` trace: PPO learns with the masks it acted with, and a
DQN replay (``CircularArraySLARTTrajectory``) gives its batches the next state's mask.

* :func:`independent_agents`: a ``MultiAgentPolicy`` of one agent per player (and fixed
  policies, e.g. ``RandomPolicy``, for the players that do not learn);
* :func:`play_against`: one player's policy against an opponent for ``n_episodes`` games, in
  test mode, as :class:`Outcomes` (win, draw and loss rates);
* :class:`EvaluateAgainstEveryNStep`: a hook that does so for every learning player before
  training and every ``n`` env steps.

Shape convention: none of its own; each learner keeps its module's.
"""

import sys
import time

import attrs
from tqdm.auto import tqdm

from rlcore import (
    AbstractHook, AbstractPolicy, Agent, MultiAgentHook, MultiAgentPolicy, PlayerView, RandomPolicy,
    StopAfterEpisode, TotalRewardPerEpisode, run,
)
from rlcore.dispatch import dispatch
from rlcore.envs import SEQUENTIAL
from rlcore.hooks import on_stage
from rlcore.policies.mode import testmode
from rlcore.stages import PostActStage, PreExperimentStage
from rlcore.utils.random import make_rng

__all__ = ["independent_agents", "Outcomes", "play_against", "EvaluateAgainstEveryNStep"]


def independent_agents(env, make_agent, *, fixed=None):
    """A :class:`~rlcore.MultiAgentPolicy` with one independent learner per player of ``env``.

    ``make_agent(view)`` builds the policy of one player (usually an ``Agent``: a learner's
    policy and its own trajectory) from the player's :class:`~rlcore.PlayerView` of ``env``:
    ``view.player`` is the player, ``view.state_space()`` and ``view.action_space()`` its
    spaces. ``fixed`` maps the players that do not learn to their policies (e.g. a
    ``RandomPolicy`` opponent); ``make_agent`` is not called for them.

    >>> from rlenvs import TicTacToeEnv
    >>> env = TicTacToeEnv()
    >>> policy = independent_agents(env, lambda view: RandomPolicy(seed=1),
    ...                             fixed={"nought": RandomPolicy(seed=0)})
    >>> sorted(policy.policies)
    ['cross', 'nought']
    """
    if not callable(make_agent):
        raise TypeError(f"make_agent must be callable as make_agent(view), got {make_agent!r}")
    fixed = dict(fixed or {})
    players = tuple(env.players())
    unknown = [p for p in fixed if p not in players]
    if unknown:
        raise ValueError(f"fixed names players {unknown} that are not players of {env!r} "
                         f"({players})")
    policies = {}
    for player in players:
        policy = fixed[player] if player in fixed else make_agent(PlayerView(env, player))
        if not isinstance(policy, AbstractPolicy):
            source = "fixed" if player in fixed else "make_agent"
            raise TypeError(f"{source} gave {policy!r} for player {player!r}; expected an rlcore "
                            f"policy (an Agent, a RandomPolicy, ...)")
        policies[player] = policy
    return MultiAgentPolicy(policies)


@attrs.frozen
class Outcomes:
    """How ``n`` games ended for one player: ``wins`` (its return > 0), ``draws`` (= 0) and
    ``losses`` (< 0); ``win_rate``, ``draw_rate`` and ``loss_rate`` are their shares.

    >>> Outcomes(wins=7, draws=2, losses=1).win_rate
    0.7
    """

    wins: int
    draws: int
    losses: int

    @property
    def n(self):
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self):
        return self.wins / self.n

    @property
    def draw_rate(self):
        return self.draws / self.n

    @property
    def loss_rate(self):
        return self.losses / self.n

    @classmethod
    def of_returns(cls, returns):
        """The outcomes of games with these returns of the player."""
        return cls(wins=sum(r > 0 for r in returns), draws=sum(r == 0 for r in returns),
                   losses=sum(r < 0 for r in returns))

    def __str__(self):
        return (f"win {self.win_rate:.0%} draw {self.draw_rate:.0%} loss {self.loss_rate:.0%} "
                f"of {self.n}")


def _acting(policy):
    """What plays in an evaluation: an ``Agent``'s inner policy (so nothing is recorded or
    learned), any other policy as is."""
    return policy.policy if isinstance(policy, Agent) else policy


def play_against(env, player, policy, opponent, n_episodes=100):
    """``n_episodes`` games of ``env`` with ``policy`` playing ``player`` and ``opponent`` every
    other player, both in test mode (greedy explorers, torch modules in eval mode; an
    ``Agent`` plays through its inner policy, so it neither records nor learns); returns the
    :class:`Outcomes` of ``player``'s returns. ``env`` must not be a training env (it is
    reset).

    >>> from rlenvs import TicTacToeEnv
    >>> outcomes = play_against(TicTacToeEnv(), "cross", RandomPolicy(seed=0),
    ...                         RandomPolicy(seed=1), n_episodes=20)
    >>> outcomes.n
    20
    """
    if player not in env.players():
        raise ValueError(f"player {player!r} is not one of {env.players()}")
    if isinstance(n_episodes, bool) or not isinstance(n_episodes, int) or n_episodes < 1:
        raise ValueError(f"n_episodes must be a positive int, got {n_episodes!r}")
    acting, opponent = _acting(policy), _acting(opponent)
    match = MultiAgentPolicy({p: acting if p == player else opponent for p in env.players()})
    with testmode(acting), testmode(opponent):
        hook = run(match, env, StopAfterEpisode(n_episodes),
                   MultiAgentHook({player: TotalRewardPerEpisode()}))
    return Outcomes.of_returns(hook[player].rewards)


def _positive(instance, attribute, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{attribute.name} must be a positive int, got {value!r}")


@attrs.define
class EvaluateAgainstEveryNStep(AbstractHook):
    """Before training and every ``n`` env steps of it, each learning player of a
    :class:`~rlcore.MultiAgentPolicy` plays ``n_episodes`` games on the hook's own ``env``
    against ``opponent`` (:func:`play_against`, in test mode).

    ``steps[i]`` is the env step count (every player's moves) at the ``i``-th evaluation, 0 for
    the one before training; ``outcomes[player][i]`` its :class:`Outcomes`. ``players``
    (default: those whose policy is an ``Agent``) are the players evaluated; ``opponent``
    (default: a ``RandomPolicy`` drawing from the hook's ``rng``) plays the others; ``seconds``
    is the wall time spent evaluating; ``verbose=True`` prints each result.

    Keyword arguments: ``env`` (required, not the training env), ``n=1000``,
    ``n_episodes=100``, ``opponent=None``, ``players=None``, ``verbose=False``, ``rng`` or
    ``seed``.

    >>> from rlcore import StopAfterStep
    >>> from rlenvs import TicTacToeEnv
    >>> policy = MultiAgentPolicy({"cross": RandomPolicy(seed=0), "nought": RandomPolicy(seed=1)})
    >>> hook = run(policy, TicTacToeEnv(), StopAfterStep(20), EvaluateAgainstEveryNStep(
    ...     TicTacToeEnv(), n=10, n_episodes=5, players=["cross"], seed=0))
    >>> hook.steps, [o.n for o in hook.outcomes["cross"]]
    ([0, 10, 20], [5, 5, 5])
    """

    env: object
    n: int = attrs.field(default=1000, validator=_positive)
    n_episodes: int = attrs.field(default=100, validator=_positive)
    opponent: object = attrs.field(default=None, kw_only=True)
    players: object = attrs.field(default=None, kw_only=True)
    verbose: bool = attrs.field(default=False, kw_only=True)
    rng: object = attrs.field(default=None, repr=False, kw_only=True)
    seed: object = attrs.field(default=None, kw_only=True)
    steps: list = attrs.field(factory=list, init=False)
    outcomes: dict = attrs.field(factory=dict, init=False)
    seconds: float = attrs.field(default=0.0, init=False)
    t: int = attrs.field(default=0, init=False)

    def __attrs_post_init__(self):
        if self.env.DynamicStyle is not SEQUENTIAL:
            raise ValueError(f"EvaluateAgainstEveryNStep plays SEQUENTIAL games, got {self.env!r}")
        self.rng = make_rng(self.rng, self.seed)
        if self.opponent is None:
            self.opponent = RandomPolicy(rng=self.rng)

    def evaluated_players(self, policy):
        """The players evaluated in ``policy`` (a ``MultiAgentPolicy``)."""
        if not isinstance(policy, MultiAgentPolicy):
            raise TypeError(f"EvaluateAgainstEveryNStep evaluates a MultiAgentPolicy, got "
                            f"{type(policy).__name__}")
        if self.players is not None:
            return list(self.players)
        players = [p for p, q in policy.policies.items() if isinstance(q, Agent)]
        if not players:
            raise ValueError("EvaluateAgainstEveryNStep: no player's policy is an Agent (a "
                             "learner); name the players to evaluate with players=[...]")
        return players

    def evaluate(self, policy):
        """One evaluation of every evaluated player; appends to ``steps`` and ``outcomes``."""
        start = time.perf_counter()
        results = {player: play_against(self.env, player, policy[player], self.opponent,
                                        self.n_episodes)
                   for player in self.evaluated_players(policy)}
        self.seconds += time.perf_counter() - start
        self.steps.append(self.t)
        for player, outcomes in results.items():
            self.outcomes.setdefault(player, []).append(outcomes)
        if self.verbose:
            tqdm.write(f"step {self.t}: " + "; ".join(f"{p} {o}" for p, o in results.items()))
            sys.stdout.flush()


@dispatch(EvaluateAgainstEveryNStep, PreExperimentStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    """The players before training (once: a resumed run does not evaluate again at its
    start); the evaluation env must not be the training env, which it would reset mid-game."""
    inner = getattr(env, "innermost", env)
    if hook.env is env or getattr(hook.env, "innermost", hook.env) is inner:
        raise ValueError(f"EvaluateAgainstEveryNStep needs its own env; it was given the "
                         f"training env {env!r}, whose games it would reset mid-episode")
    if not hook.steps:
        hook.evaluate(policy)


@dispatch(EvaluateAgainstEveryNStep, PostActStage, object, object)
def on_stage(hook, stage, policy, env):  # noqa: F811
    hook.t += 1
    if hook.t % hook.n == 0:
        hook.evaluate(policy)
