"""Tests of rlenvs/wrappers.py."""

import numpy as np
import pytest
from gymnasium import spaces

from rlcore.envs import (
    CHANCE_PLAYER, INTERNAL_STATE, SEQUENTIAL, SIMULTANEOUS, STOCHASTIC, TRAIT_NAMES,
    test_interfaces, test_runnable,
)
from rlenvs import (
    ActionTransformedEnv, CartPoleEnv, DefaultStateStyleEnv, KuhnPokerEnv, MaxTimeoutEnv,
    MontyHallEnv, PigEnv, RandomWalk1D, RewardOverriddenEnv, RewardTransformedEnv,
    RockPaperScissorsEnv, SequentialEnv, SpeakerListenerEnv, StateCachedEnv,
    StateTransformedEnv, StochasticEnv, TicTacToeEnv, TigerProblemEnv,
)


def test_wrappers_forward_traits_inner_innermost_and_attributes():
    inner = TicTacToeEnv()
    env = StateCachedEnv(RewardTransformedEnv(inner, reward_mapping=lambda r: 2 * r))
    for name in TRAIT_NAMES:
        assert getattr(env, name) is getattr(inner, name)
    assert env.innermost is inner and env.inner.inner is inner
    assert env.board is inner.board  # attribute lookup falls through to the inner env
    env.reset()
    for cell in (0, 3, 1, 4, 2):
        env(cell)
    assert env.reward("cross") == 2.0 and env.reward("nought") == -2.0
    assert env.players() == inner.players() and env.current_player() == inner.current_player()
    test_interfaces(env)


def test_state_transformed():
    one_hot = np.eye(7, dtype=np.float32)
    env = StateTransformedEnv(RandomWalk1D(), state_mapping=lambda s: one_hot[s],
                              state_space_mapping=lambda _: spaces.Box(0, 1, (7,)))
    env.reset()
    assert env.state().tolist() == np.eye(7)[3].tolist()
    test_interfaces(env)


def test_action_transformed_discretises_pendulum_and_checks_the_new_space():
    from rlenvs import PendulumEnv

    torques = np.array([[-2.0], [0.0], [2.0]], dtype=np.float32)
    env = ActionTransformedEnv(PendulumEnv(seed=0), action_mapping=torques.__getitem__,
                               action_space_mapping=lambda _: spaces.Discrete(3))
    env.reset()
    env(2)
    assert env.action_space() == spaces.Discrete(3)
    with pytest.raises(ValueError, match=r"Discrete\(3\)"):
        env(3)
    discrete = PendulumEnv(continuous=False, n_actions=5, seed=0)
    assert discrete.action_space() == spaces.Discrete(5)
    test_interfaces(discrete, n_episodes=1)


def test_action_transformed_keeps_legal_actions_of_full_action_set_envs():
    env = ActionTransformedEnv(MontyHallEnv(seed=0))
    env.reset()
    env(1)
    assert env.legal_action_space() == env.inner.legal_action_space()
    with pytest.raises(ValueError):
        env(env.inner.opened)
    test_interfaces(env)


def test_reward_overridden_and_transformed():
    env = RewardOverriddenEnv(RandomWalk1D(), lambda e: -float(e.state()))
    env.reset()
    assert env.reward() == -3.0
    two = RewardOverriddenEnv(TicTacToeEnv(), lambda e, p: 5.0 if p == "cross" else -5.0)
    assert two.reward("nought") == -5.0
    with pytest.raises(TypeError):
        RewardOverriddenEnv(RandomWalk1D(), 3)


def test_state_cached_computes_the_state_once_per_step():
    class Counting(RandomWalk1D):
        calls = 0

        def state(self, player=None):
            Counting.calls += 1
            return super().state(player)

    env = StateCachedEnv(Counting())
    env.reset()
    assert env.state() == env.state() == 3 and Counting.calls == 1
    env(1)
    assert env.state() == 4 and env.state() == 4 and Counting.calls == 2


def test_max_timeout_truncates_and_does_not_terminate():
    env = MaxTimeoutEnv(CartPoleEnv(seed=0, max_steps=500), max_t=5)
    env.reset()
    for action in (0, 1, 0, 1, 0):
        assert not env.is_truncated()
        env(action)
    assert env.is_truncated() and not env.is_terminated() and env.t == 5
    with pytest.raises(RuntimeError, match="truncated"):
        env(0)
    env.reset()
    assert env.t == 0 and not env.is_truncated()
    assert test_runnable(MaxTimeoutEnv(RandomWalk1D(actions=(0,)), max_t=3), n_steps=30) == 10
    with pytest.raises(ValueError, match="max_t"):
        MaxTimeoutEnv(RandomWalk1D(), max_t=0)


def test_default_state_style():
    env = DefaultStateStyleEnv(TigerProblemEnv(seed=0), INTERNAL_STATE)
    env.reset()
    assert env.state() == env.innermost.tiger and env.state_space() == spaces.Discrete(2)
    with pytest.raises(ValueError, match="state styles"):
        DefaultStateStyleEnv(RandomWalk1D(), INTERNAL_STATE)


def test_stochastic_env_samples_chance_with_prob():
    env = StochasticEnv(KuhnPokerEnv(), seed=0)
    assert env.ChanceStyle is STOCHASTIC
    deals = {}
    for _ in range(3000):
        env.reset()
        assert env.current_player() == "player_0"
        cards = tuple(env.innermost.cards)
        deals[cards] = deals.get(cards, 0) + 1
    assert len(deals) == 6 and all(abs(n / 3000 - 1 / 6) < 0.03 for n in deals.values())
    pig = StochasticEnv(PigEnv(target_score=10), seed=1)
    pig.reset()
    pig(0)  # roll: the die is thrown at once
    assert pig.current_player() != CHANCE_PLAYER
    test_interfaces(pig)
    test_interfaces(env)
    with pytest.raises(ValueError, match="EXPLICIT_STOCHASTIC"):
        StochasticEnv(RandomWalk1D())
    with pytest.raises(TypeError, match="chance"):
        env.prob()


def test_sequential_env_turns_a_simultaneous_game_into_turns():
    env = SequentialEnv(RockPaperScissorsEnv())
    assert env.DynamicStyle is SEQUENTIAL and env.inner.DynamicStyle is SIMULTANEOUS
    env.reset()
    assert env.current_player() == "player_0" and env.action_space() == spaces.Discrete(3)
    env(0)  # rock
    assert env.current_player() == "player_1" and env.reward("player_0") == 0.0
    assert not env.is_terminated()
    env(2)  # scissors
    assert env.is_terminated() and env.reward("player_0") == 1.0
    assert env.reward("player_1") == -1.0
    with pytest.raises(RuntimeError, match="reset"):
        env(0)
    test_interfaces(env)
    speaker = SequentialEnv(SpeakerListenerEnv(seed=0))
    test_interfaces(speaker)
    with pytest.raises(ValueError, match="SIMULTANEOUS"):
        SequentialEnv(TicTacToeEnv())


WRAPPERS = {
    "StateTransformedEnv": lambda env: StateTransformedEnv(env),
    "ActionTransformedEnv": lambda env: ActionTransformedEnv(env),
    "RewardTransformedEnv": lambda env: RewardTransformedEnv(env),
    "RewardOverriddenEnv": lambda env: RewardOverriddenEnv(env, lambda e, p=None: e.reward(p)),
    "StateCachedEnv": StateCachedEnv,
    "MaxTimeoutEnv": lambda env: MaxTimeoutEnv(env, max_t=1000),
    "DefaultStateStyleEnv": lambda env: DefaultStateStyleEnv(env, env.DefaultStateStyle),
}


@pytest.mark.parametrize("wrap", list(WRAPPERS.values()), ids=list(WRAPPERS))
@pytest.mark.parametrize("make", [TicTacToeEnv, KuhnPokerEnv])
def test_every_wrapper_forwards_the_interface_of_a_game(wrap, make):
    inner = make()
    env = wrap(inner)
    for name in TRAIT_NAMES:
        assert getattr(env, name) == getattr(inner, name), name
    env.reset()
    assert env.players() == inner.players() and env.chance_player() is inner.chance_player()
    if make is KuhnPokerEnv:
        assert env.current_player() is CHANCE_PLAYER and env.prob().sum() == pytest.approx(1.0)
    assert env.legal_action_space() == inner.legal_action_space()
    assert env.legal_action_space_mask().tolist() == inner.legal_action_space_mask().tolist()
    assert env.render() == inner.render()
    test_interfaces(env, n_episodes=5)


def test_action_transformed_legal_actions_agree_with_the_mask():
    # A mapping of the space that keeps indices: the legal actions stay the inner ones (not the
    # whole mapped space) and agree with the mask.
    env = ActionTransformedEnv(MontyHallEnv(seed=0),
                               action_space_mapping=lambda space: spaces.Discrete(space.n))
    env.reset()
    env(0)
    legal = env.legal_action_space()
    assert len(legal) == 2 and env.inner.opened not in legal
    assert list(np.flatnonzero(env.legal_action_space_mask())) == sorted(legal)
    test_interfaces(env)
    # Doors renumbered from the right: the legal actions and the mask are mapped together.
    flipped = ActionTransformedEnv(MontyHallEnv(seed=0), action_mapping=lambda a: 2 - a,
                                   legal_action_mapping=lambda legal: [2 - a for a in legal])
    flipped.reset()
    flipped(2)  # door 0
    opened = flipped.inner.opened
    assert 2 - opened not in flipped.legal_action_space()
    assert list(np.flatnonzero(flipped.legal_action_space_mask())) == sorted(
        flipped.legal_action_space())
    with pytest.raises(ValueError):
        flipped(2 - opened)
    test_interfaces(flipped)
    with pytest.raises(TypeError, match="legal_action_mapping"):
        ActionTransformedEnv(MontyHallEnv(), legal_action_mapping=3)


class Jammed(RockPaperScissorsEnv):
    """Rock-paper-scissors whose first joint step raises."""

    jams = 1

    def __call__(self, action):
        if self.jams:
            self.jams -= 1
            raise OSError("jammed")
        super().__call__(action)


def test_sequential_env_keeps_the_choices_when_the_joint_step_fails():
    env = SequentialEnv(Jammed())
    env.reset()
    env(0)  # player_0: rock
    with pytest.raises(OSError, match="jammed"):
        env(2)
    assert env.current_player() == "player_1"  # player_0's rock still stands
    env(2)  # scissors
    assert env.is_terminated() and env.reward("player_0") == 1.0


def check_forwarding(env, inner, changed=()):
    for name in TRAIT_NAMES:
        if name not in changed:
            assert getattr(env, name) == getattr(inner, name), name
    env.reset()
    assert env.players() == inner.players() and env.chance_player() is inner.chance_player()
    assert env.legal_action_space() == inner.legal_action_space(env.current_player())
    assert env.legal_action_space_mask().tolist() == \
        inner.legal_action_space_mask(env.current_player()).tolist()
    assert env.render() == inner.render()
    assert env.state_space(env.players()[0]) == inner.state_space(env.players()[0])
    test_interfaces(env, n_episodes=5)


def test_stochastic_and_sequential_envs_forward_the_interface():
    inner = KuhnPokerEnv()
    env = StochasticEnv(inner, seed=0)
    check_forwarding(env, inner, changed=("ChanceStyle",))
    assert env.current_player() == inner.current_player() == "player_0"
    assert env.state("player_0") == inner.state("player_0")
    inner = RockPaperScissorsEnv()
    env = SequentialEnv(inner)
    check_forwarding(env, inner, changed=("DynamicStyle",))
    assert env.state("player_1") == inner.state("player_1")


@pytest.mark.parametrize("wrap", list(WRAPPERS.values()), ids=list(WRAPPERS))
def test_every_wrapper_forwards_state_styles(wrap):
    inner = StateCachedEnv(TigerProblemEnv(seed=0))
    env = wrap(inner)
    env.reset()
    for _ in range(3):
        env(0)  # listen
    assert env.state(style=INTERNAL_STATE) == inner.state(style=INTERNAL_STATE) == \
        env.innermost.tiger
    assert env.state_space(style=INTERNAL_STATE) == spaces.Discrete(2)
    assert env.state() == inner.state() and env.state_space() == inner.state_space()
    for name in TRAIT_NAMES:
        assert getattr(env, name) == getattr(inner, name), name
    test_interfaces(env, n_episodes=3)
