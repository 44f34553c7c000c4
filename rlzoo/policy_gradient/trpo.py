"""TRPO: trust region policy optimisation, a natural-gradient step bounded by the mean KL.

Reference: Schulman et al. (2015), "Trust Region Policy Optimization"
(https://arxiv.org/abs/1502.05477), eq. (14) and Appendix C, in the practical form of OpenAI
baselines' ``trpo_mpi`` and SB3-contrib's ``TRPO``: GAE advantages (Schulman et al. 2016), the
critic fitted separately by its optimiser, and one policy step per rollout.

Shape convention: a rollout is time-major, ``(T, n, ...)`` for ``T = schedule.n_steps`` steps of
``n`` environments, flattened to ``T · n`` samples; parameter vectors are flat ``(P,)`` for the
``P`` numbers of the policy's parameters. With ``r_t(θ) = π_θ(a_t | s_t) / π_θ_old(a_t | s_t)``
and advantages ``Â_t`` the update solves

    maximise  L(θ) = mean_t r_t(θ) Â_t   subject to   D̄_KL(θ_old, θ) = mean_t KL(π_θ_old(· | s_t)
    ‖ π_θ(· | s_t)) ≤ δ

approximately (Appendix C): ``g = ∇L(θ_old)``; the Fisher matrix ``F`` is the Hessian of
``D̄_KL`` at ``θ_old``, applied to a vector ``v`` as ``∇(∇D̄_KL · v) + c v`` (double
back-propagation, ``c`` the damping); ``s ≈ F⁻¹ g`` by ``cg_iters`` conjugate-gradient
iterations; the largest step of the quadratic model of the constraint is ``β s`` with ``β =
√(2δ / sᵀ F s)``; the backtracking line search tries ``θ_old + κⁱ β s``, ``κ = backtrack_coef``,
``i = 0, 1, ...`` and accepts the first with ``D̄_KL ≤ δ`` and ``L(θ) > L(θ_old)``, else keeps
``θ_old``. Then the critic takes ``value_epochs`` passes of ``value_minibatches`` Adam steps
on ``mean (V(s_t) − R_t)²`` with GAE returns ``R_t = Â_t + V_old(s_t)``.

The approximators: one ``NeuralNetworkApproximator`` over an
:class:`~rlzoo.policy_gradient.networks.ActorCritic` (so acting and
:func:`~rlzoo.policy_gradient.rollout.rollout_advantages` are those of every on-policy learner),
whose optimiser holds only the critic's parameters: the actor moves by the trust-region step
alone, and an optimiser holding it would be a second, unconstrained path. The policy's
parameters are all the model's others, a shared body's included (as in SB3-contrib); the
critic is fitted on the body's features without moving the body.
"""

import math

import attrs
import torch
from torch import distributions as D
from torch.nn.utils import parameters_to_vector, vector_to_parameters

from rlcore import AbstractRolloutLearner, NeuralNetworkApproximator, RolloutSchedule
from rlcore.dispatch import dispatch, update
from rlcore.logger import scalars
from rlcore.utils.random import torch_generator
from rlcore.utils.validators import boolean, positive_int, real_in
from rlzoo.policy_gradient.advantages import normalize
from rlzoo.policy_gradient.checks import policy_of
from rlzoo.policy_gradient.distributions import Categorical, DiagGaussian
from rlzoo.policy_gradient.rollout import actor_output, rollout_advantages, rollout_scalars

__all__ = ["TRPOLearner", "conjugate_gradient", "mean_kl", "fisher_vector_product",
           "policy_objective", "line_search", "policy_step"]


@attrs.define(eq=False)
class TRPOLearner(AbstractRolloutLearner):
    """Trust region policy optimisation from full rollouts (see the module doc).

    Keyword arguments: ``approximator`` (a ``NeuralNetworkApproximator`` over an
    :class:`~rlzoo.policy_gradient.networks.ActorCritic` whose optimiser holds only
    ``model.critic``'s parameters; required), ``schedule=RolloutSchedule(128)``,
    ``gamma=0.99``, ``lam=0.95`` (GAE λ), ``max_kl=0.01`` (δ), ``cg_iters=10``,
    ``cg_damping=0.1`` (c), ``line_search_steps=10``, ``backtrack_coef=0.8`` (κ),
    ``value_epochs=5``, ``value_minibatches=1``, ``normalize_advantages=True`` (over the whole
    rollout), ``state_normalizer=None`` (the model's
    :class:`~rlzoo.policy_gradient.normalizers.ObservationNormalizer`, updated from each
    rollout's states after the update), ``reward_normalizer=None``, ``seed=0`` (the critic's
    minibatch shuffles). The policy is a Categorical or a DiagGaussian (the KL has a closed form).

    After each update: ``kl`` (``D̄_KL`` of the step taken, 0 when rejected),
    ``surrogate_improvement`` (``L(θ) − L(θ_old)``), ``line_search_steps_taken`` (the step sizes
    tried until one was accepted, 0 when none was), ``value_loss`` (the last minibatch's).

    >>> from rlzoo.policy_gradient import ActorCritic, CategoricalActor, ValueCritic
    >>> model = ActorCritic(CategoricalActor(4, 2, seed=0), ValueCritic(4, seed=1))
    >>> learner = TRPOLearner(NeuralNetworkApproximator(model, torch.optim.Adam(
    ...     model.critic.parameters(), lr=1e-3)), schedule=RolloutSchedule(512))
    """

    approximator: NeuralNetworkApproximator = attrs.field(
        validator=attrs.validators.instance_of(NeuralNetworkApproximator))
    schedule: RolloutSchedule = attrs.field(
        kw_only=True, factory=RolloutSchedule,
        validator=attrs.validators.instance_of(RolloutSchedule))
    gamma: float = attrs.field(kw_only=True, default=0.99, validator=real_in(0, 1))
    lam: float = attrs.field(kw_only=True, default=0.95, validator=real_in(0, 1))
    max_kl: float = attrs.field(kw_only=True, default=0.01,
                                validator=real_in(0, math.inf, low_open=True, high_open=True))
    cg_iters: int = attrs.field(kw_only=True, default=10, validator=positive_int)
    cg_damping: float = attrs.field(kw_only=True, default=0.1,
                                    validator=real_in(0, math.inf, high_open=True))
    line_search_steps: int = attrs.field(kw_only=True, default=10, validator=positive_int)
    backtrack_coef: float = attrs.field(kw_only=True, default=0.8,
                                        validator=real_in(0, 1, low_open=True, high_open=True))
    value_epochs: int = attrs.field(kw_only=True, default=5, validator=positive_int)
    value_minibatches: int = attrs.field(kw_only=True, default=1, validator=positive_int)
    normalize_advantages: bool = attrs.field(kw_only=True, default=True, validator=boolean)
    state_normalizer: object = attrs.field(kw_only=True, default=None)
    reward_normalizer: object = attrs.field(kw_only=True, default=None)
    seed: int = attrs.field(kw_only=True, default=0)
    generator: torch.Generator = attrs.field(init=False, repr=False)
    policy_parameters: list = attrs.field(init=False, repr=False)
    kl: object = attrs.field(init=False, default=None, repr=False)
    surrogate_improvement: object = attrs.field(init=False, default=None, repr=False)
    line_search_steps_taken: object = attrs.field(init=False, default=None, repr=False)
    value_loss: object = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self):
        model = self.approximator.model
        critic = getattr(model, "critic", None)
        if critic is None:
            raise TypeError(f"TRPOLearner needs an ActorCritic model (with .critic), got "
                            f"{type(model).__name__}")
        critic_ids = {id(p) for p in critic.parameters()}
        self.policy_parameters = [p for p in model.parameters() if id(p) not in critic_ids]
        policy_ids = {id(p) for p in self.policy_parameters}
        held = [p for group in self.approximator.optimizer.param_groups
                for p in group["params"]]
        moved = sum(p.numel() for p in held if id(p) in policy_ids)
        if moved:
            raise ValueError(f"the approximator's optimiser holds {moved} numbers of the "
                             f"policy's parameters; TRPO moves the policy by its trust-region "
                             f"step only: build the optimiser on model.critic.parameters()")
        self.generator = torch_generator(self.seed)

    def __call__(self, env):
        return actor_output(self.approximator, env)


def conjugate_gradient(matrix_vector_product, b, iters, residual_tol=1e-10):
    """``x ≈ A⁻¹ b`` for a symmetric positive-definite ``A`` given as ``v ↦ A v``, by at most
    ``iters`` conjugate-gradient iterations from ``x = 0`` (exact after ``len(b)`` in exact
    arithmetic); stops early once ``‖b − A x‖² < residual_tol``. ``b`` (P,)."""
    x = torch.zeros_like(b)
    residual = b.clone()
    direction = b.clone()
    residual_norm = residual @ residual
    for _ in range(iters):
        if residual_norm < residual_tol:
            break
        a_direction = matrix_vector_product(direction)
        alpha = residual_norm / (direction @ a_direction)
        x += alpha * direction
        residual -= alpha * a_direction
        new_norm = residual @ residual
        direction = residual + (new_norm / residual_norm) * direction
        residual_norm = new_norm
    return x


def mean_kl(old, new):
    """``D̄_KL = mean_t KL(old_t ‖ new_t)`` over the batch rows of two distributions of one type
    (torch's closed forms)."""
    if not isinstance(new, (Categorical, DiagGaussian)):
        raise TypeError(f"TRPO's KL constraint needs a Categorical or a DiagGaussian policy, "
                        f"got {type(new).__name__}")
    return D.kl_divergence(old.distribution, new.distribution).mean()


def _flat_grad(output, parameters, **kwargs):
    grads = torch.autograd.grad(output, parameters, materialize_grads=True, **kwargs)
    return torch.cat([grad.reshape(-1) for grad in grads])


def fisher_vector_product(kl, parameters, damping):
    """``v ↦ F v + damping · v`` with ``F`` the Hessian of ``kl`` (a scalar ``D̄_KL`` whose
    graph reaches ``parameters``, evaluated at ``θ = θ_old``, where it is the Fisher
    information matrix), by two back-propagations: ``∇_θ(∇_θ D̄_KL · v)``. ``v`` (P,)."""
    kl_gradient = _flat_grad(kl, parameters, create_graph=True)

    def product(vector):
        return _flat_grad(kl_gradient @ vector, parameters, retain_graph=True) + damping * vector

    return product


def policy_objective(model, batch, old_dist, advantages):
    """``(L(θ), D̄_KL(θ_old, θ))`` at the model's current parameters: the surrogate ``mean_t
    r_t(θ) Â_t`` with the acting policy's ``batch["log_prob"]`` and the mean KL from
    ``old_dist`` (the policy at ``θ_old`` on ``batch["state"]``)."""
    dist = policy_of(model, batch)
    ratio = (dist.log_prob(batch["action"]) - batch["log_prob"]).exp()
    return (ratio * advantages).mean(), mean_kl(old_dist, dist)


def line_search(objective, parameters, full_step, surrogate, max_kl, steps, backtrack_coef):
    """The backtracking line search: set ``parameters`` to ``θ_old + κⁱ full_step`` for ``i =
    0 .. steps − 1`` until ``objective()`` (a ``(L(θ), D̄_KL)`` pair) has ``D̄_KL ≤ max_kl``
    and ``L(θ) > surrogate`` (``L(θ_old)``). Returns ``(i + 1, L(θ), D̄_KL)`` for the accepted
    step, or ``(0, surrogate, 0)`` with ``parameters`` back at ``θ_old`` when none is."""
    old = parameters_to_vector(parameters).detach().clone()
    with torch.no_grad():
        for i in range(steps):
            vector_to_parameters(old + backtrack_coef ** i * full_step, parameters)
            new_surrogate, kl = (value.item() for value in objective())
            if math.isfinite(new_surrogate) and kl <= max_kl and new_surrogate > surrogate:
                return i + 1, new_surrogate, kl
        vector_to_parameters(old, parameters)
    return 0, surrogate, 0.0


def policy_step(learner, samples):
    """The trust-region step of the module doc on the flat ``samples`` (``state``, ``action``,
    ``log_prob`` of the acting policy, ``advantage``); sets ``learner.kl``,
    ``surrogate_improvement`` and ``line_search_steps_taken``. No step when the surrogate's
    gradient vanishes (``sᵀ F s = 0``)."""
    model, parameters = learner.approximator.model, learner.policy_parameters
    advantages = samples["advantage"]
    if learner.normalize_advantages:
        advantages = normalize(advantages)
    with torch.no_grad():
        old_dist = policy_of(model, samples)
    surrogate, kl = policy_objective(model, samples, old_dist, advantages)
    if not torch.isfinite(surrogate):
        raise FloatingPointError(f"the TRPO surrogate is {surrogate.item()}; no step was taken")
    gradient = _flat_grad(surrogate, parameters, retain_graph=True)
    fvp = fisher_vector_product(kl, parameters, learner.cg_damping)
    direction = conjugate_gradient(fvp, gradient, learner.cg_iters)
    curvature = (direction @ fvp(direction)).item()  # sᵀ F s
    learner.line_search_steps_taken, learner.kl, learner.surrogate_improvement = 0, 0.0, 0.0
    if not (math.isfinite(curvature) and curvature > 0):
        return
    full_step = math.sqrt(2 * learner.max_kl / curvature) * direction.detach()

    def objective():
        return policy_objective(model, samples, old_dist, advantages)

    taken, new_surrogate, learner.kl = line_search(
        objective, parameters, full_step, surrogate.item(), learner.max_kl,
        learner.line_search_steps, learner.backtrack_coef)
    learner.line_search_steps_taken = taken
    learner.surrogate_improvement = new_surrogate - surrogate.item()


@dispatch(TRPOLearner, object)
def update(learner, rollout):  # noqa: F811
    """One trust-region policy step, then ``value_epochs`` passes of ``value_minibatches``
    shuffled critic minibatches (see the module doc)."""
    app = learner.approximator
    samples = rollout_advantages(learner, rollout)  # flat (T · n) samples, on app.device
    policy_step(learner, samples)
    with torch.no_grad():  # a shared body moves with the policy only, as the actor's part
        features = app.model.body(samples["state"])
    n = features.shape[0]
    for _ in range(learner.value_epochs):
        order = torch.randperm(n, generator=learner.generator).to(app.device)
        for indices in order.chunk(learner.value_minibatches):
            values = app.model.critic(features[indices])
            value_loss = ((values - samples["return"][indices]) ** 2).mean()
            update(app, value_loss)
    learner.value_loss = value_loss.detach()
    if learner.state_normalizer is not None:
        learner.state_normalizer.update(samples["state"])


@dispatch(TRPOLearner)
def scalars(learner):  # noqa: F811
    return rollout_scalars(learner, ("kl", "surrogate_improvement", "line_search_steps_taken",
                                     "value_loss"))
