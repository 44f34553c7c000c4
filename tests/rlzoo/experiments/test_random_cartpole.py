from rlcore import run
from rlzoo.experiments.random_cartpole import main, random_cartpole


def test_random_policy_on_cartpole_averages_about_22_steps():
    hook = run(random_cartpole(seed=0, episodes=2000))
    mean = sum(hook.rewards) / len(hook.rewards)
    # The mean episode length of a uniformly random CartPole policy is ≈22.4 with a per-episode
    # std of ≈12; over 2,000 episodes the standard error is ≈0.27, so [21, 24] is > 5σ wide.
    assert len(hook.rewards) == 2000
    assert 21.0 <= mean <= 24.0


def test_command_line_prints_the_tree_and_the_mean(capsys):
    main(["--episodes", "20", "--seed", "1"])
    out = capsys.readouterr().out
    assert "Experiment: random policy on CartPole-v1" in out
    assert "mean episode reward" in out
