"""``xjit.example_libraries``: JAX's small teaching libraries, ``optimizers``
and ``stax``, kept because numpyro and JAX's tutorials import them. Like
JAX's package it imports neither submodule until asked."""
