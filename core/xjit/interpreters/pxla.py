"""``jax.interpreters.pxla``: importable so that libraries which import it
for optional paths load (orbax's Pathways plugin executable does). xjit
compiles SPMD programs in ``xjit._src.pxla`` and exports none of JAX's
(deprecated) pxla internals here; asking for one says so."""


def __getattr__(name):
    raise AttributeError(
        f"module 'jax.interpreters.pxla' has no attribute {name!r} under xjit: JAX's pxla "
        "internals (result handlers, MeshExecutable, ...) are not part of xjit's API")
