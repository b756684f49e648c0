"""``xjit.interpreters.mlir``: lowering rules, JAX's way.

``register_lowering(p, rule)`` takes a ``lower_fun(...)`` rule or a rule that
builds StableHLO ops with jaxlib's MLIR bindings (``ir``; the ``hlo``
dialect is ``xjit._src.lib.mlir.dialects.hlo``)."""
from typing import Callable

from jaxlib.mlir import ir  # noqa: F401

from xjit._src.callback import emit_python_callback  # noqa: F401
from xjit._src.interpreters.mlir import (  # noqa: F401
    LoweringRuleContext, ModuleContext, aval_to_ir_type, aval_to_ir_types, dense_int_array,
    dense_int_elements, dtype_to_ir_type, flatten_ir_types, flatten_ir_values, i32_attr,
    i64_attr, ir_constant, ir_constants, lower_fun, make_ir_context, module_to_bytecode,
    module_to_string, register_lowering, token_type)

Value = ir.Value
LoweringRule = Callable  # rule(ctx: LoweringRuleContext, *operands: ir.Value, **params)
