"""Deep CFR: counterfactual regret minimisation with advantage networks instead of tables.

Reference: Brown, Lerer, Gross & Sandholm, *Deep Counterfactual Regret Minimization*, ICML
2019 (https://arxiv.org/abs/1811.00164), Algorithms 1 and 2; OpenSpiel's
``pytorch/deep_cfr.py`` (Lanctot et al. 2019, arXiv:1908.09453) for the usual hyper-parameters;
reservoir sampling: Vitter (1985), Algorithm R.

Iteration ``t``, for each player ``p`` in turn:

1. ``n_traversals`` external-sampling traversals of the game tree for ``p``: chance and the
   other players sample one action (the others from their current strategy ``σ^t``), ``p``
   tries every legal action. At each node ``h`` of ``p`` in information set ``I`` the sampled
   instantaneous regrets ``r(I, a) = v(h·a) − Σ_b σ^t(I, b) v(h·b)`` go to ``p``'s advantage
   memory ``M_V,p`` as ``(I, t, r)``; at each node of another player ``q``, ``(I, t, σ^t(I))``
   goes to the strategy memory ``M_Π``. Both memories are reservoirs.
2. ``p``'s advantage network ``V_p`` is trained from scratch (``reinitialize_advantage_networks
   =True``, the paper's choice; else warm-started from its last weights) on ``M_V,p`` with the
   linear-CFR weighting ``L = E_{(I, t', r) ~ M_V,p}[ t' Σ_a (V_p(I)_a − r_a)² ]``.

The current strategy is regret matching on the network's advantages: ``σ^t(I, a) =
V(I)_a⁺ / Σ_b V(I)_b⁺`` over the legal actions, or all on the legal action of largest advantage
when none is positive (the paper's rule); before ``V_p`` is first trained, uniform. On a
:class:`~rlzoo.multi_agent.game_tree.GameTree` it is computed for all of ``p``'s information sets
in one batched forward when a player's traversals start (the same numbers as asking per visit).

The average policy ``Π`` is a network fitted from scratch to ``M_Π`` with the same weighting,
by cross-entropy ``L = E_{(I, t', σ) ~ M_Π}[ −t' Σ_a σ_a log Π(I)_a ]`` (``Π``: softmax over the
legal actions). It is not used to train anything, so it is fitted lazily: the first time
``action_probabilities`` is asked after an iteration added data (e.g. by a
:class:`~rlzoo.multi_agent.hooks.NashConvHook` measurement, one fit per measurement), and at the
end of a run. Each fit draws from a generator seeded by ``(seed, iteration)``, so measuring does
not change the training run nor the policy fitted at a given iteration. Before any iteration,
``Π`` is uniform.

Deliberate differences from the paper (both measured on Kuhn poker, 12 information sets, where
the fitted policy can be compared with the exact weighted average of the memory): the paper
fits ``Π`` by the weighted squared error of the probabilities, which has the same minimiser
(the ``t'``-weighted mean of the stored strategies) but vanishing gradients where the softmax
saturates, and the equilibrium has probabilities near 0 and 1; its fits from 150 iterations'
memory missed that mean by up to 0.04 (NashConv 0.059 against the mean's 0.020), cross-entropy
by 0.006 to 0.01 (NashConv 0.020). And every fit decays Adam's learning rate linearly from
``lr`` to 0 (the paper: a fixed rate, with batches of 10,000 for 4,000 steps): the last iterate
of a short fit on small batches then lands near the minimiser instead of jittering around it.

Networks see features, never the information set's index: ``features(env, player)`` (default
:func:`information_state_tensor`: the env's ``information_state_tensor(player)``, e.g.
Leduc's; :func:`kuhn_information_state_tensor` for Kuhn poker) is evaluated once per
information set of the tree (``feature_table``); memory rows keep the information set's index
and read its feature row at training time (the same data as storing the vector).

Shapes: features ``(batch, n_features)``; advantages, strategies and policy outputs
``(batch, n_actions)`` (``tree.n_actions``); legal masks ``(batch, n_actions)``.
"""

import attrs
import numpy as np
import torch

from rlcore.approximators.neural_network_approximator import NeuralNetworkApproximator
from rlcore.dispatch import dispatch, update
from rlcore.envs import CHANCE_PLAYER, FullActionSet
from rlcore.envs.base import AbstractEnv
from rlcore.stages import PostActStage, PostExperimentStage
from rlcore.utils.validators import boolean, positive_int, real_in
from rlenvs.games.kuhn_poker import KuhnPokerEnv
from rlzoo.dqns.networks import child_seed, mlp, seeded_init
from rlzoo.multi_agent.game_tree import CHANCE, TERMINAL, GameTree
from rlzoo.multi_agent.outcome_sampling_mccfr import sample_index
from rlzoo.multi_agent.solver import AbstractGameSolver, check_game_tree

__all__ = ["DeepCFRPolicy", "ReservoirMemory", "strategy_from_advantages",
           "information_state_tensor", "kuhn_information_state_tensor"]


def kuhn_information_state_tensor(env, player):
    """Kuhn poker's information state as 11 floats (OpenSpiel's layout): the player one-hot
    (2), its card one-hot (3, zero before the deal), then two bits per action of the betting
    so far (at most 3: pass ``10``, bet ``01``).

    >>> env = KuhnPokerEnv()
    >>> env.reset(); env(2); env(0); env(0)  # player_0 has the king and passes
    >>> kuhn_information_state_tensor(env, "player_1").tolist()
    [0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    """
    card, history = env.information_set(player)
    x = np.zeros(11, dtype=np.float32)
    x[env.players().index(player)] = 1.0
    if card is not None:
        x[2 + card] = 1.0
    for k, move in enumerate(history):
        x[5 + 2 * k + "pb".index(move)] = 1.0
    return x


def information_state_tensor(env, player):
    """The default features of Deep CFR: ``env.information_state_tensor(player)`` when the env
    has one (Leduc), :func:`kuhn_information_state_tensor` for Kuhn poker, ``env.state(player)``
    flattened when it is a float array; otherwise ``TypeError`` (give ``features=``: a
    one-hot of a ``Discrete`` state index would make the networks tabular)."""
    tensor = getattr(env, "information_state_tensor", None)
    if tensor is not None:
        return np.asarray(tensor(player), dtype=np.float32).reshape(-1)
    if isinstance(env, KuhnPokerEnv):
        return kuhn_information_state_tensor(env, player)
    state = env.state(player)
    if isinstance(state, np.ndarray) and state.dtype.kind == "f":
        return state.astype(np.float32).reshape(-1)
    raise TypeError(f"{env!r} has no information_state_tensor(player) and its state "
                    f"{state!r} is not a float array; give DeepCFRPolicy features=(env, player) "
                    f"-> 1-d array")


def strategy_from_advantages(advantages, legal):
    """Deep CFR's regret matching, ``(batch, n_actions)`` strategies from advantages: the
    positive parts over the legal actions, normalised; all on the legal action of largest
    advantage where none is positive (tabular CFR's regret matching plays uniformly there).

    >>> strategy_from_advantages(torch.tensor([[-1.0, 2.0, 3.0], [-1.0, -2.0, 5.0]]),
    ...                 torch.tensor([[True, True, False], [True, True, False]])).tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    """
    positive = advantages.clamp(min=0.0) * legal
    total = positive.sum(dim=1, keepdim=True)
    best = advantages.masked_fill(~legal, -torch.inf).argmax(dim=1)
    greedy = torch.nn.functional.one_hot(best, advantages.shape[1]).to(advantages.dtype)
    return torch.where(total > 0, positive / total.clamp(min=1e-300), greedy)


class ReservoirMemory:
    """A uniform sample of at most ``capacity`` of all the rows pushed so far (Vitter's
    Algorithm R), in named columns: row ``k`` (0-based, over all pushes) is stored while the
    memory is not full, then replaces a uniformly chosen row with probability ``capacity /
    (k + 1)``. ``push(**columns)`` offers a batch of rows (each column with the batch on its
    first axis; within a batch, as one row at a time); ``len`` is the number held, ``n_seen``
    the number pushed; ``columns[name][:len(memory)]`` the rows.

    >>> memory = ReservoirMemory(3, {"x": ((), np.int64)}, np.random.default_rng(0))
    >>> memory.push(x=np.arange(10))
    >>> len(memory), memory.n_seen
    (3, 10)
    """

    def __init__(self, capacity, columns, rng):
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) \
                or capacity < 1:
            raise ValueError(f"ReservoirMemory: capacity must be a positive int, got "
                             f"{capacity!r}")
        self.capacity, self.rng, self.n_seen = int(capacity), rng, 0
        self.columns = {name: np.zeros((self.capacity, *shape), dtype=dtype)
                        for name, (shape, dtype) in columns.items()}

    def __len__(self):
        return min(self.n_seen, self.capacity)

    def push(self, **rows):
        if set(rows) != set(self.columns):
            raise ValueError(f"ReservoirMemory.push needs the columns {sorted(self.columns)}, "
                             f"got {sorted(rows)}")
        n = len(next(iter(rows.values())))
        k = np.arange(self.n_seen, self.n_seen + n)  # each row's rank in the stream
        slot = np.where(k < self.capacity, k, self.rng.integers(0, k + 1))
        kept = np.flatnonzero(slot < self.capacity)
        # rows of a batch that draw the same slot: the later one wins, as one at a time
        _, last = np.unique(slot[kept][::-1], return_index=True)
        kept = kept[len(kept) - 1 - last]
        for name, column in self.columns.items():
            column[slot[kept]] = np.asarray(rows[name])[kept]
        self.n_seen += n


@attrs.define(eq=False)
class DeepCFRPolicy(AbstractGameSolver):
    """Deep CFR (see the module doc) on the game of ``tree``; one iteration per step of
    ``run(solver, env, StopAfterStep(n), hook)``. ``action_probabilities(env, player=None)`` is
    the average-policy network's output (fitted when stale, see the module doc).

    Keyword arguments: ``features=`` :func:`information_state_tensor`, ``n_traversals=100``
    (per player and iteration), ``advantage_hidden=(64,)``, ``policy_hidden=(64,)`` (hidden
    ReLU layers), ``lr=1e-2`` (Adam; each fit decays it linearly to 0),
    ``advantage_batch_size=512``, ``advantage_train_steps=100`` (per player and iteration),
    ``policy_batch_size=512``, ``policy_train_steps=500`` (per fit),
    ``memory_capacity=1_000_000`` (each memory), ``reinitialize_advantage_networks=True``,
    ``max_grad_norm=1.0`` (the paper's clipping), ``device="cpu"``, ``seed=0`` (traversal
    sampling, reservoirs, network weights and batches, from ``training_rng`` and seeds derived
    from ``seed``: the same seed gives the same run; ``solver(env)`` samples with ``rng``).

    Attributes: ``iteration``; ``advantage_memories`` (one :class:`ReservoirMemory` per player:
    ``infoset``, ``iteration``, ``regret``), ``strategy_memory`` (``infoset``, ``iteration``,
    ``strategy``); ``advantage_networks`` (per player, ``None`` before its first fit),
    ``policy_network``; ``advantage_losses`` (per player, the last loss of each fit),
    ``policy_loss``; ``feature_table`` ``(n_infosets, n_features)``.

    >>> from rlcore import StopAfterStep, run
    >>> from rlenvs import KuhnPokerEnv
    >>> tree = GameTree(KuhnPokerEnv())
    >>> solver = DeepCFRPolicy(tree, n_traversals=10, advantage_train_steps=5,
    ...                        policy_train_steps=5)
    >>> _ = run(solver, KuhnPokerEnv(), StopAfterStep(2))
    >>> solver.iteration, solver.action_probabilities(tree.infoset_env(0)).shape
    (2, (2,))
    """

    tree: GameTree = attrs.field(validator=check_game_tree, repr=False)
    features: object = attrs.field(default=information_state_tensor)
    n_traversals: int = attrs.field(default=100, validator=positive_int)
    advantage_hidden: tuple = attrs.field(default=(64,), converter=tuple)
    policy_hidden: tuple = attrs.field(default=(64,), converter=tuple)
    lr: float = attrs.field(default=1e-2, validator=real_in(0, np.inf, low_open=True,
                                                            high_open=True))
    advantage_batch_size: int = attrs.field(default=512, validator=positive_int)
    advantage_train_steps: int = attrs.field(default=100, validator=positive_int)
    policy_batch_size: int = attrs.field(default=512, validator=positive_int)
    policy_train_steps: int = attrs.field(default=500, validator=positive_int)
    memory_capacity: int = attrs.field(default=1_000_000, validator=positive_int)
    reinitialize_advantage_networks: bool = attrs.field(default=True, validator=boolean)
    max_grad_norm: object = attrs.field(default=1.0, validator=attrs.validators.optional(
        real_in(0, np.inf, low_open=True, high_open=True)))
    device: object = attrs.field(default="cpu", converter=torch.device)
    seed: int = attrs.field(default=0)
    rng: np.random.Generator = attrs.field(init=False, repr=False)
    training_rng: np.random.Generator = attrs.field(init=False, repr=False)
    iteration: int = attrs.field(default=0, init=False)
    feature_table: torch.Tensor = attrs.field(init=False, repr=False)
    advantage_memories: list = attrs.field(init=False, repr=False)
    strategy_memory: ReservoirMemory = attrs.field(init=False, repr=False)
    advantage_networks: list = attrs.field(init=False, repr=False)
    policy_network: object = attrs.field(default=None, init=False, repr=False)
    advantage_losses: list = attrs.field(init=False, repr=False)
    policy_loss: object = attrs.field(default=None, init=False, repr=False)
    _policy_iteration: int = attrs.field(default=0, init=False, repr=False)

    def __attrs_post_init__(self):
        tree = self.tree
        if not callable(self.features):
            raise TypeError(f"features must be callable (env, player) -> 1-d array, got "
                            f"{self.features!r}")
        for name in ("advantage_hidden", "policy_hidden"):
            widths = getattr(self, name)
            if any(isinstance(w, bool) or not isinstance(w, (int, np.integer)) or w < 1
                   for w in widths):
                raise ValueError(f"{name} must list positive layer widths, got {widths!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)):
            raise TypeError(f"seed must be an int, got {self.seed!r}")
        self.training_rng = np.random.default_rng([self.seed, 0])
        self.rng = np.random.default_rng([self.seed, 2])  # solver(env) samples with it
        rows = []
        for i in range(tree.n_infosets):
            x = np.asarray(self.features(tree.infoset_env(i), tree.players[tree.infoset_player[i]]),
                           dtype=np.float32)
            if x.ndim != 1 or (rows and x.shape != rows[0].shape):
                raise ValueError(f"features must give 1-d arrays of one length; information set "
                                 f"{tree.infoset_keys[i]!r} gave shape {x.shape}")
            rows.append(x)
        self.feature_table = torch.as_tensor(np.stack(rows), device=self.device)
        self._legal = torch.as_tensor(tree.infoset_legal, device=self.device)
        n_actions = tree.n_actions
        self.advantage_memories = [
            ReservoirMemory(self.memory_capacity, {"infoset": ((), np.int64),
                                                   "iteration": ((), np.float32),
                                                   "regret": ((n_actions,), np.float32)},
                            self.training_rng) for _ in tree.players]
        self.strategy_memory = ReservoirMemory(
            self.memory_capacity, {"infoset": ((), np.int64), "iteration": ((), np.float32),
                                   "strategy": ((n_actions,), np.float32)}, self.training_rng)
        self.advantage_networks = [None] * len(tree.players)
        self.advantage_losses = [[] for _ in tree.players]
        # the tree as Python lists: the traversals are scalar code
        self._node_player = tree.node_player.tolist()
        self._node_infoset = tree.node_infoset.tolist()
        self._node_edges = tree.node_edges.tolist()
        self._edge_child = tree.edge_child.tolist()
        self._edge_action = tree.edge_action.tolist()
        self._edge_prob = tree.edge_prob.tolist()
        self._returns = tree.node_returns.tolist()

    # -- the current strategy σ^t -------------------------------------------------------------

    def current_strategy(self):
        """``(n_infosets, n_actions)``: regret matching on each player's advantage network at
        its information sets (uniform for a player whose network is not trained yet)."""
        table = torch.as_tensor(self.tree.uniform_table())
        for p, approximator in enumerate(self.advantage_networks):
            if approximator is None:
                continue
            rows = np.flatnonzero(self.tree.infoset_player == p)
            with torch.no_grad():
                advantages = approximator(self.feature_table[rows])
                table[rows] = strategy_from_advantages(advantages.double(), self._legal[rows]).cpu()
        return table.numpy()

    # -- external sampling --------------------------------------------------------------------

    def traverse(self, player, strategy, node=0):
        """One external-sampling traversal for player index ``player`` from ``node`` with the
        strategy table ``strategy``: ``(value, regrets, strategies)``, the sampled value of
        ``node`` to the player, the ``(infoset, regret vector)`` of each of its nodes visited
        (deepest first) and the ``(infoset, strategy row)`` of each other player's node."""
        regrets, strategies = [], []
        sigma = strategy.tolist()
        n_actions = self.tree.n_actions
        kind, infoset = self._node_player, self._node_infoset
        first, child, action = self._node_edges, self._edge_child, self._edge_action
        chance_prob, returns, rng = self._edge_prob, self._returns, self.training_rng

        def walk(n):
            owner = kind[n]
            if owner == TERMINAL:
                return returns[n][player]
            lo, hi = first[n], first[n + 1]
            if owner == CHANCE:
                return walk(child[lo + sample_index(chance_prob[lo:hi], rng)])
            row = sigma[infoset[n]]
            if owner != player:
                strategies.append((infoset[n], row))
                return walk(child[lo + sample_index([row[action[e]] for e in range(lo, hi)],
                                                    rng)])
            values = [walk(child[e]) for e in range(lo, hi)]
            value = sum(row[action[e]] * v for e, v in zip(range(lo, hi), values))
            regret = [0.0] * n_actions
            for e, v in zip(range(lo, hi), values):
                regret[action[e]] = v - value
            regrets.append((infoset[n], regret))
            return value

        return walk(node), regrets, strategies

    # -- the networks -------------------------------------------------------------------------

    def _fit(self, approximator, memory, target, row_loss, steps, batch_size, rng):
        """``steps`` Adam steps on batches of ``memory`` (drawn with replacement by ``rng``), the
        learning rate decaying linearly from ``lr`` to 0 over the fit: the mean over the batch of
        ``t' / t · row_loss(net(x), target, legal)`` (the linear-CFR weight ``t'`` of the row,
        scaled by the current iteration ``t``); returns the last loss."""
        n = len(memory)
        infosets = torch.as_tensor(memory.columns["infoset"][:n], device=self.device)
        weights = torch.as_tensor(memory.columns["iteration"][:n] / self.iteration,
                                  device=self.device)
        targets = torch.as_tensor(memory.columns[target][:n], device=self.device)
        for k in range(steps):
            for group in approximator.optimizer.param_groups:
                group["lr"] = self.lr * (1 - k / steps)
            index = torch.as_tensor(rng.integers(n, size=batch_size), device=self.device)
            rows = infosets[index]
            outputs = approximator(self.feature_table[rows])
            loss = (weights[index] * row_loss(outputs, targets[index], self._legal[rows])).mean()
            update(approximator, loss)
        return loss.item()

    def _network(self, hidden, seed):
        with seeded_init(seed):
            model = mlp([self.feature_table.shape[1], *hidden, self.tree.n_actions])
        return NeuralNetworkApproximator(model, torch.optim.Adam(model.parameters(), lr=self.lr),
                                         device=self.device, max_grad_norm=self.max_grad_norm)

    def train_advantage_network(self, player):
        """Fit player index ``player``'s advantage network to its memory (see the module doc)."""
        approximator = self.advantage_networks[player]
        if approximator is None or self.reinitialize_advantage_networks:
            seed = child_seed(self.seed, self.iteration * len(self.tree.players) + player)
            approximator = self.advantage_networks[player] = self._network(
                self.advantage_hidden, seed)
        loss = self._fit(approximator, self.advantage_memories[player], "regret",
                         _squared_error, self.advantage_train_steps,
                         self.advantage_batch_size, self.training_rng)
        self.advantage_losses[player].append(loss)

    def fit_policy_network(self):
        """Fit the average-policy network from scratch to the strategy memory (a no-op when it
        already holds this iteration's fit); its generator is seeded by ``(seed,
        iteration)``."""
        if self._policy_iteration == self.iteration or len(self.strategy_memory) == 0:
            return
        rng = np.random.default_rng([self.seed, 1, self.iteration])
        self.policy_network = self._network(self.policy_hidden, int(rng.integers(2**63)))
        self.policy_loss = self._fit(self.policy_network, self.strategy_memory, "strategy",
                                     _cross_entropy, self.policy_train_steps,
                                     self.policy_batch_size, rng)
        self._policy_iteration = self.iteration

    def action_probabilities(self, env, player=None):
        player = env.current_player() if player is None else player
        if player is CHANCE_PLAYER:
            raise ValueError("DeepCFRPolicy has no policy for the chance player")
        if isinstance(env.ActionStyle, FullActionSet):
            legal = np.asarray(env.legal_action_space_mask(player), dtype=bool)
        else:
            legal = np.ones(env.action_space(player).n, dtype=bool)
        self.fit_policy_network()
        if self.policy_network is None:
            return legal / legal.sum()
        x = np.asarray(self.features(env, player), dtype=np.float32)[None]
        with torch.no_grad():
            logits = self.policy_network(x)[0, :len(legal)]
            probs = _masked_softmax(logits[None], torch.as_tensor(legal, device=logits.device))
        return probs[0].cpu().numpy().astype(np.float64)


def _masked_softmax(logits, legal):
    return torch.softmax(logits.masked_fill(~legal, -torch.inf), dim=1)


def _squared_error(advantages, regrets, legal):
    """``Σ_a (V(I)_a − r_a)²`` per row (illegal actions: regret 0, as stored)."""
    return ((advantages - regrets) ** 2).sum(dim=1)


def _cross_entropy(logits, strategies, legal):
    """``−Σ_a σ_a log Π(I)_a`` per row, ``Π`` the softmax over the legal actions."""
    log_probs = torch.log_softmax(logits.masked_fill(~legal, -torch.inf), dim=1)
    return -(strategies * log_probs.masked_fill(~legal, 0.0)).sum(dim=1)


@dispatch(DeepCFRPolicy, AbstractEnv, PostActStage)
def update(solver, env, stage):  # noqa: F811
    """One Deep CFR iteration: for each player, traversals, then its advantage network."""
    solver.iteration += 1
    t = solver.iteration
    for p in range(len(solver.tree.players)):
        strategy = solver.current_strategy()
        regrets, strategies = [], []
        for _ in range(solver.n_traversals):
            _, r, s = solver.traverse(p, strategy)
            regrets += r
            strategies += s
        if regrets:
            infosets, rows = zip(*regrets)
            solver.advantage_memories[p].push(infoset=np.array(infosets), iteration=np.full(
                len(rows), t), regret=np.array(rows))
        if strategies:
            infosets, rows = zip(*strategies)
            solver.strategy_memory.push(infoset=np.array(infosets), iteration=np.full(
                len(rows), t), strategy=np.array(rows))
        if len(solver.advantage_memories[p]):
            solver.train_advantage_network(p)


@dispatch(DeepCFRPolicy, AbstractEnv, PostExperimentStage)
def update(solver, env, stage):  # noqa: F811
    """The end of a run fits the average policy to the strategy memory."""
    solver.fit_policy_network()
