"""Environment traits, with the values of ReinforcementLearning.jl's RLBase.

A trait is a class attribute of the environment (``env.ActionStyle is FULL_ACTION_SET``). Each
value is the single instance of a small class, so rules can dispatch on a trait's class::

    @dispatch(object, Simultaneous, object, object)
    def run_loop(policy, dynamic_style, stop_condition, hook): ...

| trait | values | default |
|---|---|---|
| NumAgentStyle | SINGLE_AGENT, MultiAgent(n) | SINGLE_AGENT |
| DynamicStyle | SEQUENTIAL, SIMULTANEOUS | SEQUENTIAL |
| InformationStyle | PERFECT_INFORMATION, IMPERFECT_INFORMATION | IMPERFECT_INFORMATION |
| ChanceStyle | STOCHASTIC, DETERMINISTIC, EXPLICIT_STOCHASTIC, SAMPLED_STOCHASTIC | STOCHASTIC |
| RewardStyle | STEP_REWARD, TERMINAL_REWARD | STEP_REWARD |
| UtilityStyle | GENERAL_SUM, ZERO_SUM, CONSTANT_SUM, IDENTICAL_UTILITY | GENERAL_SUM |
| ActionStyle | MINIMAL_ACTION_SET, FULL_ACTION_SET | MINIMAL_ACTION_SET |
| StateStyle | tuple of OBSERVATION, INTERNAL_STATE, INFORMATION_SET, GOAL_STATE | (OBSERVATION,) |
"""

import attrs

__all__ = [
    "AbstractTrait",
    "NumAgentStyle", "SingleAgent", "MultiAgent", "SINGLE_AGENT",
    "DynamicStyle", "Sequential", "Simultaneous", "SEQUENTIAL", "SIMULTANEOUS",
    "InformationStyle", "PerfectInformation", "ImperfectInformation", "PERFECT_INFORMATION",
    "IMPERFECT_INFORMATION",
    "ChanceStyle", "Stochastic", "Deterministic", "ExplicitStochastic", "SampledStochastic",
    "STOCHASTIC", "DETERMINISTIC", "EXPLICIT_STOCHASTIC", "SAMPLED_STOCHASTIC",
    "RewardStyle", "StepReward", "TerminalReward", "STEP_REWARD", "TERMINAL_REWARD",
    "UtilityStyle", "GeneralSum", "ZeroSum", "ConstantSum", "IdenticalUtility", "GENERAL_SUM",
    "ZERO_SUM", "CONSTANT_SUM", "IDENTICAL_UTILITY",
    "ActionStyle", "MinimalActionSet", "FullActionSet", "MINIMAL_ACTION_SET", "FULL_ACTION_SET",
    "StateStyle", "Observation", "InternalState", "InformationSet", "GoalState", "OBSERVATION",
    "INTERNAL_STATE", "INFORMATION_SET", "GOAL_STATE",
    "TRAIT_NAMES",
]


class AbstractTrait:
    """Base class of every trait value."""

    def __repr__(self):
        return _constant_name(type(self).__name__)


def _constant_name(name):
    return "".join("_" + c if c.isupper() else c.upper() for c in name).lstrip("_")


# --- NumAgentStyle
class NumAgentStyle(AbstractTrait):
    """How many agents act in the environment."""


class SingleAgent(NumAgentStyle):
    """One agent."""


@attrs.frozen(repr=False)
class MultiAgent(NumAgentStyle):
    """``n`` agents (chance player excluded)."""

    n: int = attrs.field()

    @n.validator
    def _check(self, attribute, value):
        if not isinstance(value, int) or value < 2:
            raise ValueError(f"MultiAgent needs n >= 2 players, got n={value!r}")

    def __repr__(self):
        return f"MultiAgent({self.n})"


SINGLE_AGENT = SingleAgent()


# --- DynamicStyle
class DynamicStyle(AbstractTrait):
    """Whether agents act in turns or at once."""


class Sequential(DynamicStyle):
    """One player acts at a time."""


class Simultaneous(DynamicStyle):
    """All players act at once; the action is a tuple of every player's action."""


SEQUENTIAL, SIMULTANEOUS = Sequential(), Simultaneous()


# --- InformationStyle
class InformationStyle(AbstractTrait):
    """Whether every player sees the whole state."""


class PerfectInformation(InformationStyle):
    """Every player knows everything that has happened."""


class ImperfectInformation(InformationStyle):
    """Some information is hidden from some player."""


PERFECT_INFORMATION, IMPERFECT_INFORMATION = PerfectInformation(), ImperfectInformation()


# --- ChanceStyle
class ChanceStyle(AbstractTrait):
    """How randomness enters the environment."""


class Stochastic(ChanceStyle):
    """Randomness is internal to the environment (driven by its ``rng``)."""


class Deterministic(ChanceStyle):
    """No randomness."""


class ExplicitStochastic(ChanceStyle):
    """A chance player acts; ``prob()`` gives its action distribution."""


class SampledStochastic(ChanceStyle):
    """Like EXPLICIT_STOCHASTIC, but the chance outcomes are sampled inside the environment."""


STOCHASTIC, DETERMINISTIC = Stochastic(), Deterministic()
EXPLICIT_STOCHASTIC, SAMPLED_STOCHASTIC = ExplicitStochastic(), SampledStochastic()


# --- RewardStyle
class RewardStyle(AbstractTrait):
    """When rewards arrive."""


class StepReward(RewardStyle):
    """A reward may arrive after every step."""


class TerminalReward(RewardStyle):
    """Only the final step carries a non-zero reward."""


STEP_REWARD, TERMINAL_REWARD = StepReward(), TerminalReward()


# --- UtilityStyle
class UtilityStyle(AbstractTrait):
    """How the players' returns relate."""


class GeneralSum(UtilityStyle):
    """No constraint."""


class ZeroSum(UtilityStyle):
    """Rewards of all players sum to zero."""


class ConstantSum(UtilityStyle):
    """Rewards of all players sum to a constant."""


class IdenticalUtility(UtilityStyle):
    """Every player receives the same reward."""


GENERAL_SUM, ZERO_SUM = GeneralSum(), ZeroSum()
CONSTANT_SUM, IDENTICAL_UTILITY = ConstantSum(), IdenticalUtility()


# --- ActionStyle
class ActionStyle(AbstractTrait):
    """Whether the action space changes with the state."""


class MinimalActionSet(ActionStyle):
    """Every action of ``action_space()`` is legal in every state."""


class FullActionSet(ActionStyle):
    """Only ``legal_action_space()`` is legal now; ``legal_action_space_mask()`` gives the mask."""


MINIMAL_ACTION_SET, FULL_ACTION_SET = MinimalActionSet(), FullActionSet()


# --- StateStyle
class StateStyle(AbstractTrait):
    """What ``state()`` returns."""


class Observation(StateStyle):
    """What the player observes."""


class InternalState(StateStyle):
    """The environment's full internal state."""


class InformationSet(StateStyle):
    """The player's information set (its own history of observations)."""


class GoalState(StateStyle):
    """The goal the agent is asked to reach (goal-conditioned environments, RL.jl's
    ``GoalState``)."""


OBSERVATION, INTERNAL_STATE, INFORMATION_SET = Observation(), InternalState(), InformationSet()
GOAL_STATE = GoalState()

TRAIT_NAMES = ("NumAgentStyle", "DynamicStyle", "InformationStyle", "ChanceStyle", "RewardStyle",
               "UtilityStyle", "ActionStyle", "StateStyle")
