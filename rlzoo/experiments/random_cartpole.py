"""A random policy on CartPole-v1 through the run loop; prints the mean episode reward.

    python -m rlzoo.experiments.random_cartpole --episodes 2000 --seed 0

A uniformly random policy balances the pole for about 22 steps on average.
"""

import argparse
import time

from rlcore import Experiment, RandomPolicy, StopAfterEpisode, TotalRewardPerEpisode, run
from rlenvs import GymEnv


def random_cartpole(seed=0, episodes=2000, progress=False):
    """The experiment: ``RandomPolicy`` on ``GymEnv("CartPole-v1")`` for ``episodes`` episodes."""
    return Experiment(
        policy=RandomPolicy(seed=seed),
        env=GymEnv("CartPole-v1", seed=seed),
        stop_condition=StopAfterEpisode(episodes, progress=progress),
        hook=TotalRewardPerEpisode(),
        description=f"random policy on CartPole-v1, {episodes} episodes, seed {seed}",
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    experiment = random_cartpole(args.seed, args.episodes, progress=True)
    print(experiment)
    start = time.perf_counter()
    hook = run(experiment)
    seconds = time.perf_counter() - start
    rewards = hook.rewards
    print(f"{len(rewards)} episodes, {int(sum(rewards))} steps in {seconds:.1f} s; "
          f"mean episode reward {sum(rewards) / len(rewards):.2f}")


if __name__ == "__main__":
    main()
