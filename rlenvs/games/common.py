"""What the games share: the check of a joint action and the joint action space."""

from gymnasium import spaces

from rlcore.envs import CHANCE_PLAYER, SIMULTANEOUS_PLAYER, check_action_in_space

__all__ = ["SIMULTANEOUS_PLAYER", "check_joint_action", "joint_action_space", "player_or_current"]


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


def player_or_current(env, player):
    """``player``, or ``env.current_player()`` when it is ``None``; a ``ValueError`` unless it is
    one of ``env.players()`` or the chance player."""
    player = env.current_player() if player is None else player
    if player is not CHANCE_PLAYER and player not in env.players():
        raise ValueError(f"player {player!r} is not one of {env.players()} or CHANCE_PLAYER")
    return player
