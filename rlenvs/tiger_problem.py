"""The tiger problem, a classic POMDP (Kaelbling, Littman & Cassandra 1998), after RL.jl's
``TigerProblemEnv``."""

from gymnasium import spaces

from rlcore.envs import (
    GENERAL_SUM, IMPERFECT_INFORMATION, INTERNAL_STATE, MINIMAL_ACTION_SET, OBSERVATION,
    SEQUENTIAL, SINGLE_AGENT, STEP_REWARD, STOCHASTIC, AbstractEnv,
)
from rlcore.utils.random import make_rng

__all__ = ["TigerProblemEnv"]

LISTEN, OPEN_LEFT, OPEN_RIGHT = 0, 1, 2
LEFT, RIGHT = 0, 1
NO_OBSERVATION, HEAR_LEFT, HEAR_RIGHT = 0, 1, 2


class TigerProblemEnv(AbstractEnv):
    """A tiger waits behind one of two doors, a treasure behind the other.

    Kaelbling, Littman & Cassandra, *Planning and acting in partially observable stochastic
    domains*, Artificial Intelligence 101 (1998). Each episode the tiger is put behind the left or
    the right door with equal probability. Actions: ``0`` listen (reward ``listen_reward``; the
    agent hears the tiger on its true side with probability ``listen_accuracy``), ``1`` open the
    left door, ``2`` open the right door (``tiger_reward`` if the tiger is there, otherwise
    ``treasure_reward``). Opening a door ends the episode.

    Two state styles: OBSERVATION (default), ``Discrete(3)``: 0 nothing heard yet (or a door was
    opened), 1 heard the tiger on the left, 2 on the right; INTERNAL_STATE, ``Discrete(2)``: where
    the tiger is (0 left, 1 right). ``state(style=INTERNAL_STATE)`` asks for the latter; wrap in
    :class:`rlenvs.DefaultStateStyleEnv` to make it the default.

    Keyword arguments: ``listen_accuracy=0.85``, ``listen_reward=-1.0``, ``tiger_reward=-100.0``,
    ``treasure_reward=10.0``, ``rng``/``seed``.

    Example::

        >>> env = TigerProblemEnv(seed=0)
        >>> env.reset(); env(0); env.state() in (1, 2), env.reward()
        (True, -1.0)
    """

    NumAgentStyle = SINGLE_AGENT
    DynamicStyle = SEQUENTIAL
    InformationStyle = IMPERFECT_INFORMATION
    ChanceStyle = STOCHASTIC
    RewardStyle = STEP_REWARD
    UtilityStyle = GENERAL_SUM
    ActionStyle = MINIMAL_ACTION_SET
    StateStyle = (OBSERVATION, INTERNAL_STATE)

    def __init__(self, *, listen_accuracy=0.85, listen_reward=-1.0, tiger_reward=-100.0,
                 treasure_reward=10.0, rng=None, seed=None):
        if not 0.0 <= listen_accuracy <= 1.0:
            raise ValueError(f"listen_accuracy must be a probability in [0, 1], got "
                             f"listen_accuracy={listen_accuracy!r}")
        self.listen_accuracy = float(listen_accuracy)
        self.listen_reward = float(listen_reward)
        self.tiger_reward = float(tiger_reward)
        self.treasure_reward = float(treasure_reward)
        self.rng = make_rng(rng, seed)
        self._action_space = spaces.Discrete(3)
        self._spaces = {OBSERVATION: spaces.Discrete(3), INTERNAL_STATE: spaces.Discrete(2)}
        self.tiger = LEFT
        self.observation = NO_OBSERVATION
        self.last_action = None

    def reset(self):
        self.tiger = int(self.rng.integers(2))
        self.observation = NO_OBSERVATION
        self.last_action = None

    def __call__(self, action):
        self.check_action(action)
        if self.is_terminated():
            raise RuntimeError(f"{self!r}: a door was opened; call reset() before acting")
        action = int(action)
        self.last_action = action
        if action == LISTEN:
            heard_true_side = self.rng.random() < self.listen_accuracy
            side = self.tiger if heard_true_side else 1 - self.tiger
            self.observation = HEAR_LEFT if side == LEFT else HEAR_RIGHT
        else:
            self.observation = NO_OBSERVATION

    def state(self, player=None, style=None):
        if style is None or style is OBSERVATION:
            return self.observation
        if style is INTERNAL_STATE:
            return self.tiger
        raise ValueError(f"TigerProblemEnv has state styles {self.StateStyle}, got {style!r}")

    def state_space(self, player=None, style=None):
        try:
            return self._spaces[OBSERVATION if style is None else style]
        except KeyError:
            raise ValueError(f"TigerProblemEnv has state styles {self.StateStyle}, "
                             f"got {style!r}") from None

    def reward(self, player=None):
        if self.last_action is None:
            return 0.0
        if self.last_action == LISTEN:
            return self.listen_reward
        opened = LEFT if self.last_action == OPEN_LEFT else RIGHT
        return self.tiger_reward if opened == self.tiger else self.treasure_reward

    def is_terminated(self):
        return self.last_action in (OPEN_LEFT, OPEN_RIGHT)

    def action_space(self, player=None):
        return self._action_space

    def render(self, mode="text"):
        if mode != "text":
            raise ValueError(f"TigerProblemEnv renders only mode='text', got mode={mode!r}")
        doors = ["[tiger]" if side == self.tiger else "[treasure]" for side in (LEFT, RIGHT)]
        heard = ("nothing", "tiger on the left", "tiger on the right")[self.observation]
        return f"{doors[0]} {doors[1]}; heard: {heard}"

    def __repr__(self):
        return f"TigerProblemEnv(listen_accuracy={self.listen_accuracy})"
