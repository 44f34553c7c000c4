"""Minimax search on tic-tac-toe against a random player.

* ``Minimax_TicTacToe``: a :class:`~rlzoo.multi_agent.minimax.MinimaxPolicy` (alpha-beta, to
  the end of the game unless ``depth`` is given) plays ``games`` games of
  :class:`~rlenvs.TicTacToeEnv` as ``minimax_player`` (``"cross"`` moves first, ``"nought"``
  second) against a uniformly random opponent, through a :class:`~rlcore.MultiAgentPolicy`. The
  hook is a :class:`~rlcore.MultiAgentHook` of :class:`~rlcore.TotalRewardPerEpisode`, one per
  player: ``hook[player].rewards`` holds its result of each game (1 win, 0 draw, -1 loss);
  :func:`outcomes` counts them. With ``verbose`` the minimax player's mean result is printed
  at the end.

    rlzoo run Minimax_TicTacToe games=200 minimax_player=nought
"""

from rlcore import (
    Experiment, MultiAgentHook, MultiAgentPolicy, RandomPolicy, StopAfterEpisode,
    TotalRewardPerEpisode,
)
from rlenvs import TicTacToeEnv
from rlzoo.experiments.common import spawn_seeds
from rlzoo.experiments.registry import register
from rlzoo.multi_agent.minimax import MinimaxPolicy

__all__ = ["Minimax_TicTacToe", "outcomes"]

PLAYERS = ("cross", "nought")


@register("alpha-beta minimax against a random player on tic-tac-toe")
def Minimax_TicTacToe(seed=0, *, games=100, minimax_player="cross", depth=None,
                      progress=False, verbose=False):
    if minimax_player not in PLAYERS:
        raise ValueError(f"minimax_player must be one of {PLAYERS}, got {minimax_player!r}")
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    random_player = PLAYERS[1 - PLAYERS.index(minimax_player)]
    seeds = spawn_seeds(seed, 3)
    env = TicTacToeEnv(seed=seeds[0])
    policy = MultiAgentPolicy({minimax_player: MinimaxPolicy(depth=depth, seed=seeds[1]),
                               random_player: RandomPolicy(seed=seeds[2])})
    hook = MultiAgentHook({player: TotalRewardPerEpisode(display_on_exit=verbose and
                                                         player == minimax_player)
                           for player in PLAYERS})
    search = "full-depth" if depth is None else f"depth-{depth}"
    return Experiment(policy, env, StopAfterEpisode(games, progress=progress), hook,
                      f"{search} minimax as {minimax_player} against a random {random_player} "
                      f"on tic-tac-toe, {games} games, seed {seed}")


def outcomes(hook, player):
    """``(wins, draws, losses)`` of ``player`` in the games recorded by a ``Minimax_TicTacToe``
    hook."""
    rewards = hook[player].rewards
    return (sum(r > 0 for r in rewards), sum(r == 0 for r in rewards),
            sum(r < 0 for r in rewards))
