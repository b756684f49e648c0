"""flax unchanged under the takeover: a linen CNN with TrainState
(programs/flax_linen_cnn.py) and an nnx MLP with nnx.Optimizer and nnx.jit
(programs/flax_nnx_mlp.py), against JAX 0.10.2."""
import pytest

PROGRAMS = ["flax_linen_cnn", "flax_nnx_mlp"]


@pytest.mark.parametrize("program", PROGRAMS)
def test_matches_jax(program_run, program):
    program_run(program).assert_matches_jax()


@pytest.mark.parametrize("program", PROGRAMS)
def test_bit_equal_to_jax(program_run, program):
    program_run(program).assert_bit_equal_where_jax_is_deterministic()
