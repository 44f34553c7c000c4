"""The base class of environment wrappers (docs/architecture.md §2).

A wrapper holds an environment in ``inner`` and forwards the whole interface (every method of
the environment interface and every trait) to it; a subclass changes one thing. The concrete
wrappers live in :mod:`rlenvs.wrappers`; the base lives here because :mod:`rlcore` needs it too
(:class:`rlcore.policies.PlayerView`).
"""

from rlcore.envs.base import AbstractEnv

__all__ = ["AbstractEnvWrapper", "styled_state", "styled_state_space"]


def _forward_trait(name):
    return property(lambda self: getattr(self.inner, name),
                    doc=f"The inner environment's ``{name}``.")


def styled_state(env, player, style):
    """``env.state(player)``, passing ``style`` only when one is asked for."""
    return env.state(player) if style is None else env.state(player, style=style)


def styled_state_space(env, player, style):
    return env.state_space(player) if style is None else env.state_space(player, style=style)


class AbstractEnvWrapper(AbstractEnv):
    """Base class of wrappers: forwards the interface and the traits to ``inner``."""

    NumAgentStyle = _forward_trait("NumAgentStyle")
    DynamicStyle = _forward_trait("DynamicStyle")
    InformationStyle = _forward_trait("InformationStyle")
    ChanceStyle = _forward_trait("ChanceStyle")
    RewardStyle = _forward_trait("RewardStyle")
    UtilityStyle = _forward_trait("UtilityStyle")
    ActionStyle = _forward_trait("ActionStyle")
    StateStyle = _forward_trait("StateStyle")

    def __init__(self, env):
        if not isinstance(env, AbstractEnv):
            raise TypeError(f"{type(self).__name__} wraps an rlcore AbstractEnv, got {env!r}")
        self.inner = env

    @property
    def innermost(self):
        """The environment at the bottom of the stack of wrappers."""
        env = self.inner
        while isinstance(env, AbstractEnvWrapper):
            env = env.inner
        return env

    def __getattr__(self, name):
        # Only called when normal lookup fails; "inner" itself missing means a half-built object.
        if name == "inner" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    def reset(self):
        self.inner.reset()

    def __call__(self, action):
        self.inner(action)

    def state(self, player=None, style=None):
        return styled_state(self.inner, player, style)

    def state_space(self, player=None, style=None):
        return styled_state_space(self.inner, player, style)

    def reward(self, player=None):
        return self.inner.reward(player)

    def is_terminated(self):
        return self.inner.is_terminated()

    def is_truncated(self):
        return self.inner.is_truncated()

    def action_space(self, player=None):
        return self.inner.action_space(player)

    def legal_action_space(self, player=None):
        return self.inner.legal_action_space(player)

    def legal_action_space_mask(self, player=None):
        return self.inner.legal_action_space_mask(player)

    def current_player(self):
        return self.inner.current_player()

    def players(self):
        return self.inner.players()

    def chance_player(self):
        return self.inner.chance_player()

    def prob(self, player=None):
        return self.inner.prob(player)

    def render(self, mode="text"):
        return self.inner.render(mode)

    def close(self):
        """Close the inner environment, if it can be closed."""
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()

    def __repr__(self):
        return f"{type(self).__name__}({self.inner!r})"
