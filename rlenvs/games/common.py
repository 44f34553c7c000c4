"""What the games share: the check of a joint action and the joint action space."""

from gymnasium import spaces

from rlcore.envs import SIMULTANEOUS_PLAYER, check_action_in_space

__all__ = ["SIMULTANEOUS_PLAYER", "check_joint_action", "joint_action_space"]


def joint_action_space(env):
    """The ``spaces.Tuple`` of every player's action space, in the order of ``players()``."""
    return spaces.Tuple(tuple(env.action_space(p) for p in env.players()))


def check_joint_action(env, action):
    """Raise ``ValueError`` unless ``action`` holds one legal action per player, in order."""
    players = env.players()
    if not isinstance(action, (tuple, list)) or len(action) != len(players):
        raise ValueError(f"action {action!r} is not in the action space "
                         f"{env.action_space()}: a {type(env).__name__} action is a tuple of "
                         f"{len(players)} actions, one per player of {players}")
    for player, a in zip(players, action):
        try:
            check_action_in_space(a, env.action_space(player))
        except ValueError as error:
            raise ValueError(f"action {action!r} is not in the action space "
                             f"{env.action_space()}: {player}'s {error}") from None
