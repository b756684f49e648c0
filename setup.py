"""The one C extension, beside pyproject.toml's metadata: jit's dispatch fast
path (core/xjit/_src/lib/_fastpath.c) reads its arguments and wraps its
results in C. Building it needs a C compiler and Python's headers."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("xjit._src.lib._fastpath",
                             sources=["core/xjit/_src/lib/_fastpath.c"])])
