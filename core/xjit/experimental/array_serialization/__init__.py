"""Array serialization (as ``jax.experimental.array_serialization``): writing
and reading jax.Arrays with TensorStore."""
