import pytest

from rlcore.experiment import Experiment
from rlcore.hooks import TotalRewardPerEpisode
from rlcore.policies import RandomPolicy
from rlcore.run import run
from rlcore.stop_conditions import StopAfterEpisode
from tests.helpers import LineEnv


def test_run_experiment_and_print_tree():
    ex = Experiment(RandomPolicy(seed=0), LineEnv(length=2), StopAfterEpisode(3),
                    TotalRewardPerEpisode(), "a corridor")
    text = str(ex)
    assert text.splitlines()[0] == "Experiment: a corridor"
    assert "├─ policy => RandomPolicy" in text
    assert "stop_condition => StopAfterEpisode" in text
    assert "│  ├─ n => 3" in text
    assert "length => 2" in text
    hook = run(ex)
    assert hook is ex.hook and hook.rewards == [2.0, 2.0, 2.0]


def test_experiment_validates():
    with pytest.raises(TypeError, match="AbstractEnv"):
        Experiment(RandomPolicy(), "CartPole-v1", StopAfterEpisode(1))
    with pytest.raises(TypeError, match="no further arguments"):
        run(Experiment(RandomPolicy(), LineEnv(), StopAfterEpisode(1)), LineEnv())


def test_tree_of_a_gym_experiment_is_short_and_names_the_env():
    from rlenvs import GymEnv

    text = str(Experiment(RandomPolicy(seed=0), GymEnv("CartPole-v1", seed=0),
                          StopAfterEpisode(1)))
    assert "CartPole-v1" in text
    assert len(text.splitlines()) < 20
