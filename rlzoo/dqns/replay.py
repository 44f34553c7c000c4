"""What the DQN-family learners check of their replay, and prioritized replay's step.

Prioritized replay (Schaul et al., 2016, https://arxiv.org/abs/1511.05952): the learners that
keep priorities (``PrioritizedDQNLearner``, ``RainbowLearner``) draw each batch by priority,
learn from it with importance weights, and write the new priorities back before the next batch
is drawn (:func:`learn_prioritized`).
"""

from rlcore import NStepBatchSampler
from rlcore.dispatch import update
from rlcore.envs import n_envs

__all__ = ["check_sampler_gamma", "check_prioritized", "learn_prioritized"]


def check_sampler_gamma(learner):
    """Raise unless an n-step sampler of ``learner.schedule`` discounts with the learner's
    ``gamma`` (its ``discount = γ^k`` enters the learner's target)."""
    sampler = learner.schedule.sampler
    if isinstance(sampler, NStepBatchSampler) and sampler.gamma != learner.gamma:
        raise ValueError(f"{type(learner).__name__}: the sampler's gamma ({sampler.gamma}) must "
                         f"equal the learner's gamma ({learner.gamma})")


def check_prioritized(learner, trajectory):
    """Raise unless ``trajectory`` keeps priorities (a prioritized replay trajectory)."""
    if "priority" not in trajectory:
        raise TypeError(f"{type(learner).__name__} needs a prioritized trajectory "
                        f"(CircularArrayPSARTTrajectory, or CircularArraySARTSTrajectory with "
                        f"prioritized=True), got {type(trajectory).__name__}")


def learn_prioritized(learner, trajectory, env):
    """The ``PreActStage`` rule of a prioritized learner: for each batch its schedule draws,
    ``update(learner, batch)`` returns the batch's new priorities, written back at once."""
    check_prioritized(learner, trajectory)
    for batch in learner.schedule.batches(trajectory, n_envs(env)):
        trajectory.update_priorities(batch["indices"], update(learner, batch))
