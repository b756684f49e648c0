"""equinox unchanged under the takeover: programs/equinox_mlp.py against JAX 0.10.2."""


def test_matches_jax(program_run):
    program_run("equinox_mlp").assert_matches_jax()


def test_bit_equal_to_jax(program_run):
    program_run("equinox_mlp").assert_bit_equal_where_jax_is_deterministic()
