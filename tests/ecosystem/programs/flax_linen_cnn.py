"""flax.linen: a small CNN classifier trained with flax.training.TrainState."""
import jax
import jax.numpy as jnp
import optax
import flax.linen as nn
from flax.training import train_state

STEPS = 60


class CNN(nn.Module):
    classes: int = 4

    @nn.compact
    def __call__(self, x):
        x = nn.Conv(features=8, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))
        x = nn.Conv(features=16, kernel_size=(3, 3), padding="VALID")(x)
        x = nn.relu(x)
        x = x.reshape((x.shape[0], -1))
        x = nn.Dense(features=32)(x)
        x = nn.LayerNorm()(x)
        x = nn.swish(x)
        return nn.Dense(features=self.classes)(x)


key = jax.random.key(42)
k_img, k_lbl, k_init = jax.random.split(key, 3)
images = jax.random.normal(k_img, (32, 12, 12, 1))
labels = jax.random.randint(k_lbl, (32,), 0, 4)

model = CNN()
params = model.init(k_init, images[:1])["params"]
state = train_state.TrainState.create(apply_fn=model.apply, params=params,
                                      tx=optax.adamw(3e-3, weight_decay=1e-4))


@jax.jit
def train_step(state, images, labels):
    def loss_fn(params):
        logits = state.apply_fn({"params": params}, images)
        loss = optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()
        return loss, logits

    (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
    accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
    return state.apply_gradients(grads=grads), loss, accuracy


losses, accs = [], []
for _ in range(STEPS):
    state, loss, acc = train_step(state, images, labels)
    losses.append(float(loss))
    accs.append(float(acc))

RESULTS = {
    "loss": losses[::10] + [losses[-1]],
    "accuracy": accs[::10] + [accs[-1]],
    "param_norm": {"/".join(str(getattr(k, "key", k)) for k in path): float(jnp.linalg.norm(v))
                   for path, v in jax.tree_util.tree_leaves_with_path(state.params)},
    "step": int(state.step),
    "param_count": sum(int(v.size) for v in jax.tree_util.tree_leaves(state.params)),
}
