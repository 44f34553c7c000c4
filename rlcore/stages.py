"""The stages of an experiment, emitted by :func:`rlcore.run.run` to policies and hooks.

Each stage is the single instance of an empty frozen class, so rules can dispatch on the class::

    @dispatch(MyHook, PostEpisodeStage, AbstractPolicy, AbstractEnv)
    def on_stage(hook, stage, policy, env): ...
"""

import attrs

__all__ = [
    "AbstractStage", "PreExperimentStage", "PreEpisodeStage", "PreActStage", "PostActStage",
    "PostEpisodeStage", "PostExperimentStage", "PRE_EXPERIMENT_STAGE", "PRE_EPISODE_STAGE",
    "PRE_ACT_STAGE", "POST_ACT_STAGE", "POST_EPISODE_STAGE", "POST_EXPERIMENT_STAGE", "STAGES",
]


@attrs.frozen(repr=False)
class AbstractStage:
    """Base class of the stages."""

    def __repr__(self):
        name = type(self).__name__
        return "".join("_" + c if c.isupper() else c.upper() for c in name).lstrip("_")


@attrs.frozen(repr=False)
class PreExperimentStage(AbstractStage):
    """Before the first episode."""


@attrs.frozen(repr=False)
class PreEpisodeStage(AbstractStage):
    """Right after ``env.reset()``."""


@attrs.frozen(repr=False)
class PreActStage(AbstractStage):
    """An action has been chosen and is about to be applied."""


@attrs.frozen(repr=False)
class PostActStage(AbstractStage):
    """The action has been applied to the environment."""


@attrs.frozen(repr=False)
class PostEpisodeStage(AbstractStage):
    """The episode has ended (terminated or truncated)."""


@attrs.frozen(repr=False)
class PostExperimentStage(AbstractStage):
    """After the run has stopped."""


PRE_EXPERIMENT_STAGE = PreExperimentStage()
PRE_EPISODE_STAGE = PreEpisodeStage()
PRE_ACT_STAGE = PreActStage()
POST_ACT_STAGE = PostActStage()
POST_EPISODE_STAGE = PostEpisodeStage()
POST_EXPERIMENT_STAGE = PostExperimentStage()
STAGES = (PRE_EXPERIMENT_STAGE, PRE_EPISODE_STAGE, PRE_ACT_STAGE, POST_ACT_STAGE,
          POST_EPISODE_STAGE, POST_EXPERIMENT_STAGE)
