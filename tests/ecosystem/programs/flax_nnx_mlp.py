"""flax.nnx: an MLP module with dropout and batch norm, nnx.Optimizer, nnx.jit."""
import jax
import jax.numpy as jnp
import optax
from flax import nnx

STEPS = 80


class MLP(nnx.Module):
    def __init__(self, din, dhidden, dout, *, rngs: nnx.Rngs):
        self.linear1 = nnx.Linear(din, dhidden, rngs=rngs)
        self.bn = nnx.BatchNorm(dhidden, rngs=rngs)
        self.dropout = nnx.Dropout(0.1, rngs=rngs)
        self.linear2 = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x):
        x = nnx.relu(self.dropout(self.bn(self.linear1(x))))
        return self.linear2(x)


key = jax.random.key(7)
kx, kw = jax.random.split(key)
x = jax.random.normal(kx, (64, 6))
true_w = jax.random.normal(kw, (6, 3))
y = jnp.tanh(x @ true_w)

model = MLP(6, 24, 3, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adam(5e-3), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


losses = []
for _ in range(STEPS):
    losses.append(float(train_step(model, optimizer, x, y)))

model.eval()
eval_loss = float(jnp.mean((model(x) - y) ** 2))
params = nnx.state(model, nnx.Param)
RESULTS = {
    "loss": losses[::10] + [losses[-1]],
    "eval_loss": eval_loss,
    "param_norm": {"/".join(map(str, path)): float(jnp.linalg.norm(v))
                   for path, v in jax.tree_util.tree_leaves_with_path(
                       nnx.to_pure_dict(params), is_leaf=lambda v: hasattr(v, "shape"))
                   for path in [[getattr(k, "key", k) for k in path]]},
    "batch_stats_mean_norm": float(jnp.linalg.norm(model.bn.mean[...])),
    "optimizer_step": int(optimizer.step[...]),
}
