"""``xjit.test_util``: numerical derivative checks."""
from xjit._src.public_test_util import check_grads, check_jvp, check_vjp  # noqa: F401
