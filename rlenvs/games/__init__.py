"""Multi-agent environments and games, after ReinforcementLearning.jl's ``RLEnvs``."""

from rlenvs.games.kuhn_poker import KuhnPokerEnv
from rlenvs.games.leduc_poker import LeducPokerEnv
from rlenvs.games.pig import PigEnv
from rlenvs.games.rock_paper_scissors import RockPaperScissorsEnv
from rlenvs.games.speaker_listener import SpeakerListenerEnv
from rlenvs.games.tic_tac_toe import TicTacToeEnv
from rlenvs.games.tiny_hanabi import TinyHanabiEnv

__all__ = ["RockPaperScissorsEnv", "TicTacToeEnv", "KuhnPokerEnv", "LeducPokerEnv",
           "TinyHanabiEnv", "PigEnv", "SpeakerListenerEnv"]
