"""Mutable array references (``new_ref``/``Ref``): types, primitives, discharge."""
