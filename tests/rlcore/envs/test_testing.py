"""Tests of rlcore/envs/testing.py: the checks catch broken environments and pass good ones."""

import numpy as np
import pytest
from gymnasium import spaces

from rlcore.envs import (
    CHANCE_PLAYER, EXPLICIT_STOCHASTIC, FULL_ACTION_SET, SEQUENTIAL, SIMULTANEOUS,
    TERMINAL_REWARD, ZERO_SUM,
    AbstractEnv, FullActionSet, MultiAgent, test_interfaces, test_runnable,
)
from rlcore.envs.testing import EnvInterfaceError


# ----------------------------------------------------------------------------- good fake envs
class Walk(AbstractEnv):
    """Single agent on positions 0..4, starting at 2; the ends are terminal; time limit 20."""

    def __init__(self, limit=20):
        self.limit = limit
        self.position, self.t = 2, 0

    def reset(self):
        self.position, self.t = 2, 0

    def __call__(self, action):
        self.check_action(action)
        self.position += 1 if action == 1 else -1
        self.t += 1

    def state(self, player=None):
        return self.position

    def reward(self, player=None):
        return 1.0 if self.position == 4 else 0.0

    def is_terminated(self):
        return self.position in (0, 4)

    def is_truncated(self):
        return not self.is_terminated() and self.t >= self.limit

    def action_space(self, player=None):
        return spaces.Discrete(2)

    def state_space(self, player=None):
        return spaces.Discrete(5)


class Pick(AbstractEnv):
    """FULL_ACTION_SET: pick each of 4 numbers once, in any order; reward is the number picked."""

    ActionStyle = FULL_ACTION_SET

    def __init__(self):
        self.picked = []

    def reset(self):
        self.picked = []

    def __call__(self, action):
        self.check_action(action)
        self.picked.append(int(action))

    def state(self, player=None):
        state = np.zeros(4, dtype=np.int8)
        state[self.picked] = 1
        return state

    def reward(self, player=None):
        return float(self.picked[-1]) if self.picked else 0.0

    def is_terminated(self):
        return len(self.picked) == 4

    def action_space(self, player=None):
        return spaces.Discrete(4)

    def legal_action_space(self, player=None):
        return [a for a in range(4) if a not in self.picked]

    def state_space(self, player=None):
        return spaces.MultiBinary(4)


class Race(AbstractEnv):
    """Two players take turns adding 1 or 2 to a counter; whoever reaches 5 wins (+1, other -1)."""

    NumAgentStyle = MultiAgent(2)
    DynamicStyle = SEQUENTIAL
    RewardStyle = TERMINAL_REWARD
    UtilityStyle = ZERO_SUM

    def __init__(self):
        self.total, self.turn, self.winner = 0, 0, None

    def reset(self):
        self.total, self.turn, self.winner = 0, 0, None

    def players(self):
        return ("first", "second")

    def current_player(self):
        return self.players()[self.turn]

    def __call__(self, action):
        self.check_action(action)
        self.total = min(self.total + action + 1, 5)
        if self.total == 5:
            self.winner = self.current_player()
        self.turn = 1 - self.turn

    def state(self, player=None):
        return self.total

    def reward(self, player=None):
        player = self.current_player() if player is None else player
        if self.winner is None:
            return 0.0
        return 1.0 if player == self.winner else -1.0

    def is_terminated(self):
        return self.winner is not None

    def action_space(self, player=None):
        return spaces.Discrete(2)

    def state_space(self, player=None):
        return spaces.Discrete(6)


class Dice(AbstractEnv):
    """EXPLICIT_STOCHASTIC: chance rolls a biased coin, then the player guesses it (reward 1)."""

    ChanceStyle = EXPLICIT_STOCHASTIC
    ActionStyle = FULL_ACTION_SET

    def __init__(self, probabilities=(0.25, 0.75)):
        self.probabilities = np.asarray(probabilities)
        self.coin = self.guess = None

    def reset(self):
        self.coin = self.guess = None

    def current_player(self):
        return CHANCE_PLAYER if self.coin is None else super().current_player()

    def prob(self, player=None):
        return self.probabilities

    def __call__(self, action):
        self.check_action(action)
        if self.coin is None:
            self.coin = action
        else:
            self.guess = action

    def state(self, player=None):
        return 0 if self.coin is None else 1

    def reward(self, player=None):
        return float(self.guess is not None and self.guess == self.coin)

    def is_terminated(self):
        return self.guess is not None

    def action_space(self, player=None):
        return spaces.Discrete(2)

    def legal_action_space(self, player=None):
        return spaces.Discrete(2)

    def state_space(self, player=None):
        return spaces.Discrete(2)


class Push(AbstractEnv):
    """A Box action: push a point on [-1, 1]; ends when it leaves [-2, 2]."""

    def __init__(self):
        self.x, self.t = np.zeros(1, dtype=np.float32), 0

    def reset(self):
        self.x, self.t = np.zeros(1, dtype=np.float32), 0

    def __call__(self, action):
        self.check_action(action)
        self.x = np.clip(self.x + np.asarray(action, dtype=np.float32), -3, 3)
        self.t += 1

    def state(self, player=None):
        return self.x

    def reward(self, player=None):
        return -float(abs(self.x[0]))

    def is_terminated(self):
        return bool(abs(self.x[0]) > 2)

    def is_truncated(self):
        return self.t >= 50

    def action_space(self, player=None):
        return spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)

    def state_space(self, player=None):
        return spaces.Box(-3.0, 3.0, shape=(1,), dtype=np.float32)


class RockPaperScissors(AbstractEnv):
    """SIMULTANEOUS two-player game: the action is a pair of moves, one round per episode."""

    NumAgentStyle = MultiAgent(2)
    DynamicStyle = SIMULTANEOUS
    UtilityStyle = ZERO_SUM

    def __init__(self):
        self.moves = None

    def reset(self):
        self.moves = None

    def players(self):
        return (0, 1)

    def __call__(self, action):
        self.check_action(action)
        self.moves = tuple(int(a) for a in action)

    def state(self, player=None):
        return 0 if self.moves is None else 1

    def reward(self, player=None):
        if self.moves is None or player is None:
            return 0.0
        mine, theirs = self.moves[player], self.moves[1 - player]
        return float(((mine - theirs) % 3 == 1) - ((theirs - mine) % 3 == 1))

    def is_terminated(self):
        return self.moves is not None

    def action_space(self, player=None):
        both = spaces.Tuple((spaces.Discrete(3), spaces.Discrete(3)))
        return both if player is None else spaces.Discrete(3)

    def state_space(self, player=None):
        return spaces.Discrete(2)


GOOD_ENVS = [Walk, Pick, Race, Dice, Push, RockPaperScissors]


@pytest.mark.parametrize("make_env", GOOD_ENVS, ids=lambda cls: cls.__name__)
def test_good_envs_pass(make_env):
    env = make_env()
    test_interfaces(env)
    assert test_runnable(env, n_steps=500, seed=1) > 0
    assert not env.is_terminated()  # both leave the env reset


def test_checks_use_no_global_random_state_and_repeat_with_a_seed():
    before = np.random.get_state()[1].copy()
    runs = [test_runnable(Race(), n_steps=300, seed=7) for _ in range(2)]
    test_interfaces(Pick(), rng=np.random.default_rng(3))
    assert np.array_equal(np.random.get_state()[1], before)
    assert runs[0] == runs[1]


def test_chance_actions_follow_prob():
    env = Dice(probabilities=(0.0, 1.0))
    coins = []

    class Recording(Dice):
        def __call__(self, action):
            if self.coin is None:
                coins.append(action)
            super().__call__(action)

    test_runnable(Recording(probabilities=(0.0, 1.0)), n_steps=100, seed=0)
    assert coins and set(coins) == {1}
    test_interfaces(env)


def test_not_collected_by_pytest():
    assert test_interfaces.__test__ is False and test_runnable.__test__ is False


def test_unfinished_episodes_are_allowed():
    test_interfaces(Walk(limit=10**9), max_episode_steps=3)


# ----------------------------------------------------------------------------- broken envs
class StateOutOfSpace(Walk):
    def state(self, player=None):
        return self.position + 10


class StateOutOfSpaceLater(Walk):
    def state(self, player=None):
        return 99 if self.t == 3 else self.position


class IntTerminated(Walk):
    def is_terminated(self):
        return int(self.position in (0, 4))


class NumpyArrayTruncated(Walk):
    def is_truncated(self):
        return np.array([False])


class AcceptsIllegal(Walk):
    def __call__(self, action):
        self.position += 1 if action == 1 else -1
        self.t += 1


class IllegalRaisesTypeError(Walk):
    def __call__(self, action):
        if action not in (0, 1):
            raise TypeError("bad")
        super().__call__(action)


class IllegalChangesState(Walk):
    def __call__(self, action):
        self.t += 1
        self.position += 1 if action == 1 else -1
        if action not in (0, 1):
            raise ValueError(f"action {action} is not in Discrete(2)")


class WrongTraitClass(Walk):
    ActionStyle = SEQUENTIAL


class NewTraitInstance(Walk):
    ActionStyle = FullActionSet()


class EmptyStateStyle(Walk):
    StateStyle = ()


class BoolReward(Walk):
    def reward(self, player=None):
        return self.position == 4


class NanReward(Walk):
    def reward(self, player=None):
        return float("nan") if self.t == 2 else 0.0


class ResetDoesNotReset(Walk):
    def reset(self):
        if self.t == 0:
            super().reset()


class ListSpace(Walk):
    def state_space(self, player=None):
        return range(5)


class MaskDisagrees(Pick):
    def legal_action_space_mask(self, player=None):
        return np.ones(4, dtype=bool)


class LegalNotSubset(Pick):
    def legal_action_space(self, player=None):
        return super().legal_action_space() + [7]


class IllegalPickAccepted(Pick):
    def __call__(self, action):
        if action not in range(4):
            raise ValueError(f"action {action} is not in Discrete(4)")
        self.picked.append(int(action))

    def is_terminated(self):
        return len(self.picked) >= 4


class ProbNotNormalised(Dice):
    def __init__(self):
        super().__init__(probabilities=(0.5, 0.6))


class TooManyPlayers(Race):
    NumAgentStyle = MultiAgent(3)


class NotZeroSum(Race):
    def reward(self, player=None):
        return 1.0 if self.winner is not None else 0.0


class SecondPlayerStateOutOfSpace(Race):
    def state(self, player=None):
        return 17 if player == "second" else self.total


class StepRewardUnderTerminalReward(Race):
    def reward(self, player=None):
        return 0.5 if self.winner is None and self.total > 0 else super().reward(player)


class BadCurrentPlayer(Race):
    def current_player(self):
        return "nobody" if self.total else super().current_player()


BROKEN = [
    (StateOutOfSpace, "state()", "12"),
    (IntTerminated, "is_terminated()", "0"),
    (NumpyArrayTruncated, "is_truncated()", "[False]"),
    (AcceptsIllegal, "env(2)", "accepted"),
    (IllegalRaisesTypeError, "TypeError", "ValueError"),
    (IllegalChangesState, "changed the environment", "env("),
    (WrongTraitClass, "ActionStyle", "SEQUENTIAL"),
    (NewTraitInstance, "ActionStyle", "FULL_ACTION_SET"),
    (EmptyStateStyle, "StateStyle", "()"),
    (BoolReward, "reward()", "False"),
    (NanReward, "reward()", "nan"),
    (ResetDoesNotReset, "reset()", "is_terminated()=True"),
    (ListSpace, "state_space()", "range(0, 5)"),
    (MaskDisagrees, "legal_action_space_mask()", "[ True  True  True  True]"),
    (LegalNotSubset, "legal_action_space()", "[7]"),
    (IllegalPickAccepted, "accepted", "env("),
    (ProbNotNormalised, "prob()", "0.6"),
    (TooManyPlayers, "players()", "'second'"),
    (NotZeroSum, "ZERO_SUM", "'first': 1.0"),
    (SecondPlayerStateOutOfSpace, "state('second')", "17"),
    (StepRewardUnderTerminalReward, "TERMINAL_REWARD", "0.5"),
    (BadCurrentPlayer, "current_player()", "'nobody'"),
]


@pytest.mark.parametrize("make_env, method, value", BROKEN, ids=[c[0].__name__ for c in BROKEN])
def test_broken_envs_fail_test_interfaces_with_a_message(make_env, method, value):
    with pytest.raises(EnvInterfaceError) as error:
        test_interfaces(make_env())
    message = str(error.value)
    assert isinstance(error.value, AssertionError)
    assert make_env.__name__ in message and method in message and value in message, message


RUNNABLE_BROKEN = [StateOutOfSpaceLater, IntTerminated, BoolReward, NanReward, ResetDoesNotReset,
                   MaskDisagrees, ProbNotNormalised, SecondPlayerStateOutOfSpace, BadCurrentPlayer]


@pytest.mark.parametrize("make_env", RUNNABLE_BROKEN, ids=lambda cls: cls.__name__)
def test_broken_envs_fail_test_runnable(make_env):
    with pytest.raises(EnvInterfaceError, match=make_env.__name__):
        test_runnable(make_env(), n_steps=200)


def test_message_says_when():
    with pytest.raises(EnvInterfaceError, match=r"after step 3 of episode \d, action \d\); got 99"):
        test_interfaces(StateOutOfSpaceLater())


def test_exception_inside_a_method_is_reported_with_context():
    class RaisingReward(Walk):
        def reward(self, player=None):
            raise KeyError("oops")

    with pytest.raises(EnvInterfaceError, match=r"reward\(\) raised KeyError.*after reset"):
        test_interfaces(RaisingReward())
