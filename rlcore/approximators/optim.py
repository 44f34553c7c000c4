"""``FusedAdam``: Adam in one fused kernel call per step, with little Python around it.

For the small networks of most RL experiments a CPU optimiser step is Python overhead, not
arithmetic: ``torch.optim.Adam(fused=True)`` runs the same fused kernel, but first rebuilds its
per-parameter lists through several helper layers, increments one step counter per parameter (a
slow path on the CPU) and groups the tensors by device: in a loop of forward, backward and step of
a 4-64-64-2 MLP on one CPU thread (batch 128) its step costs about 50 µs, this one's 15 µs
(torch's default Adam: 130 µs). ``FusedAdam`` reads its lists straight from the optimiser state
and keeps the step counters of a group's parameters as elements of one tensor, incremented by one
operation (through a numpy view on the CPU), and turns gradient tracking off and on itself
instead of through ``torch.no_grad()``'s decorator. The update is Adam's (Kingma & Ba, 2015,
with torch's ``weight_decay`` as an L2 term); tests check it gives the same parameters as
``torch.optim.Adam`` step for step.
"""

import itertools
import numbers

import torch
import torch.optim.optimizer as _torch_optimizer

__all__ = ["FusedAdam"]

# torch's registries of global optimizer step hooks (register_optimizer_step_pre_hook, ...)
_GLOBAL_PRE_HOOKS = _torch_optimizer._global_optimizer_pre_hooks
_GLOBAL_POST_HOOKS = _torch_optimizer._global_optimizer_post_hooks
_set_grad_enabled = torch._C._set_grad_enabled

# group options of torch.optim.Adam/AdamW that FusedAdam does not implement
_UNSUPPORTED = ("amsgrad", "maximize", "decoupled_weight_decay", "capturable", "differentiable")


class FusedAdam(torch.optim.Optimizer):
    """Adam (Kingma & Ba, 2015) as ``torch.optim.Adam(fused=True)`` computes it, with less
    per-step overhead (see the module doc).

    Args:
        params: parameters or parameter groups, as for any torch optimiser.
        lr: learning rate (> 0; a float an LR scheduler may change).
        betas: ``(β1, β2)``, each in [0, 1).
        eps: added to the denominator (> 0).
        weight_decay: L2 penalty added to the gradient (>= 0), as ``torch.optim.Adam``.

    Parameters whose ``grad`` is ``None`` at a step are skipped (frozen layers). The state of
    each parameter is ``torch.optim.Adam``'s (``step``, ``exp_avg``, ``exp_avg_sq``): state
    dicts load either way, and resetting or replacing entries of ``optimizer.state`` works as
    with Adam. A parameter's ``step`` is a 0-d view into one counter tensor of its group.
    On the CPU the counter is incremented through a numpy view, without bumping torch's
    version counter of the ``step`` tensors: autograd would not notice that a graph built on
    one (a loss multiplied by ``state["step"]``) saw another value; do not differentiate
    through them. Adam's ``amsgrad``, ``maximize`` and AdamW's decoupled decay are not
    implemented: a group that asks for them (e.g. from a loaded state dict) raises
    ``ValueError`` at the step. The kernel is torch's ``_fused_adam_`` (CPU and CUDA, torch >=
    2.4): the parameters of a group must share one device and one real floating dtype, with
    dense gradients.

    >>> model = torch.nn.Linear(3, 1)
    >>> optimizer = FusedAdam(model.parameters(), lr=1e-3)
    >>> model(torch.ones(2, 3)).sum().backward()
    >>> optimizer.step()
    >>> int(optimizer.state[model.weight]["step"])
    1
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        if not (_is_real(lr) and lr > 0):
            raise ValueError(f"FusedAdam: lr must be a number > 0, got {lr!r}")
        if not (isinstance(betas, (tuple, list)) and len(betas) == 2
                and all(_is_real(b) and 0.0 <= b < 1.0 for b in betas)):
            raise ValueError(f"FusedAdam: betas must be two numbers in [0, 1), got {betas!r}")
        if not (_is_real(eps) and eps > 0):
            raise ValueError(f"FusedAdam: eps must be a number > 0, got {eps!r}")
        if not (_is_real(weight_decay) and weight_decay >= 0):
            raise ValueError(f"FusedAdam: weight_decay must be a number >= 0, got "
                             f"{weight_decay!r}")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay}
        super().__init__(params, defaults)
        self._counters = {}

    def _patch_step_function(self):
        # torch.optim.Optimizer wraps a subclass's step in a profiler record and its hook loop
        # (15-30 µs per call on a CPU): this class's step calls the hooks itself and records
        # only while a profiler runs. A subclass with a step of its own is wrapped as torch
        # does (its step calling ours then runs the kernel without the hooks a second time).
        if type(self).step is FusedAdam.step:
            self._zero_grad_profile_name = f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"
        else:
            super()._patch_step_function()

    def __setstate__(self, state):
        # copies, pickles and load_state_dict come through here: the counters are rebuilt
        super().__setstate__(state)
        self._counters = {}

    def _counter(self, group, params, states):
        """Make the ``step`` of each of ``states`` a view into one new counter tensor holding
        their step counts (new parameters get state and count 0); return what a step
        increments (the counter, or on the CPU a numpy view of it) and the views. Checks the
        group's parameters first."""
        first = params[0]
        if len({id(p) for p in params}) != len(params):
            raise ValueError("FusedAdam: a parameter appears twice in a parameter group")
        for p in params:
            if not p.dtype.is_floating_point:
                raise TypeError(f"FusedAdam supports real floating parameters, got {p.dtype}")
            if p.device != first.device or p.dtype != first.dtype:
                raise TypeError(f"FusedAdam: the parameters of a group must share one device and "
                                f"dtype; got {p.dtype} on {p.device} and {first.dtype} on "
                                f"{first.device}")
            if p.grad.is_sparse:
                raise RuntimeError("FusedAdam does not support sparse gradients")
        counts = []
        for p, state in zip(params, states):
            if "exp_avg" not in state or "exp_avg_sq" not in state:
                state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                counts.append(0.0)
            else:
                counts.append(float(state.get("step", 0.0)))
        counter = torch.tensor(counts, dtype=torch.float32, device=first.device)
        views = [counter[i] for i in range(len(params))]
        for state, view in zip(states, views):
            state["step"] = view
        # on the CPU the increment goes through a numpy view of the counter (0.3 against 1.8 µs
        # for torch's in-place add; the same float32 values)
        increment = counter.numpy() if counter.device.type == "cpu" else counter
        self._counters[id(group)] = (group, increment, views)
        return increment, views

    def step(self, *args, **kwargs):
        """``step(closure=None)``: one Adam step on every parameter that has a gradient; returns
        ``closure()``'s loss when a closure is given. Step pre- and post-hooks (the optimiser's
        and the global ones) run as with torch's optimisers, with the same arguments."""
        if type(self).step is FusedAdam.step and (
                self._optimizer_step_pre_hooks or self._optimizer_step_post_hooks
                or _GLOBAL_PRE_HOOKS or _GLOBAL_POST_HOOKS
                or getattr(torch.autograd.profiler, "_is_profiler_enabled", False)):
            return self._hooked_step((self,) + args, kwargs)
        return self._fused_step(*args, **kwargs)

    def _hooked_step(self, args, kwargs):
        """``_fused_step`` inside torch's profiler record and hook calls, as the wrapper
        ``torch.optim.Optimizer`` puts around a subclass's step (``args`` starts with
        ``self``)."""
        with torch.autograd.profiler.record_function(
                f"Optimizer.step#{type(self).__name__}.step"):
            for hook in itertools.chain(_GLOBAL_PRE_HOOKS.values(),
                                        self._optimizer_step_pre_hooks.values()):
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"an optimizer step pre-hook must return None or a "
                                           f"tuple of (new_args, new_kwargs), got {result!r}")
                    args, kwargs = result
            out = self._fused_step(*args[1:], **kwargs)
            self._optimizer_step_code()
            for hook in itertools.chain(self._optimizer_step_post_hooks.values(),
                                        _GLOBAL_POST_HOOKS.values()):
                hook(self, args, kwargs)
            return out

    def _fused_step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        # the kernel updates leaves that require grad in place: without gradient tracking, as
        # torch.no_grad() would do (its decorator costs about 1.5 µs a call, this 0.2)
        enabled = torch.is_grad_enabled()
        _set_grad_enabled(False)
        try:
            self._fused_groups()
        finally:
            _set_grad_enabled(enabled)
        return loss

    def _fused_groups(self):
        all_state = self.state
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            for option in _UNSUPPORTED:
                if group.get(option):
                    raise ValueError(f"FusedAdam does not implement {option}=True (a parameter "
                                     "group asks for it); use torch.optim.Adam or AdamW")
            states = [all_state[p] for p in params]
            steps = [state.get("step") for state in states]
            cached = self._counters.get(id(group))
            if cached is not None and cached[0] is group and len(cached[2]) == len(steps) \
                    and all(a is b for a, b in zip(steps, cached[2])):
                counter, steps = cached[1], cached[2]
            else:  # first step, or parameters or state changed since the last one
                counter, steps = self._counter(group, params, states)
            counter += 1
            beta1, beta2 = group["betas"]
            torch._fused_adam_(params, [p.grad for p in params],
                               [state["exp_avg"] for state in states],
                               [state["exp_avg_sq"] for state in states], [], steps,
                               lr=group["lr"], beta1=beta1, beta2=beta2,
                               weight_decay=group["weight_decay"], eps=group["eps"],
                               amsgrad=False, maximize=False)

    def state_dict(self):
        """``torch.optim.Optimizer.state_dict`` with each ``step`` a tensor of its own (a copy,
        not a view into the group's counter, as ``torch.optim.Adam`` keeps it)."""
        packed = super().state_dict()
        packed["state"] = {
            key: {**value, "step": value["step"].clone()}
            if isinstance(value.get("step"), torch.Tensor) else value
            for key, value in packed["state"].items()}
        return packed

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        self._counters = {}


def _is_real(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)
