"""``xjit.interpreters.partial_eval``: staging functions into jaxprs."""
from xjit._src.interpreters.partial_eval import DynamicJaxprTracer  # noqa: F401
from xjit._src.interpreters.partial_vals import (  # noqa: F401
    PartialVal, Val, dce_jaxpr, dce_jaxpr_consts, trace_to_jaxpr_dynamic, trace_to_jaxpr_nounits)
