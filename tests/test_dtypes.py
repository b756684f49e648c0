"""Tests for xjit._src.dtypes: JAX's dtype canonicalization, weak types,
promotion, warnings and errors.

The promotion tables were generated once from JAX 0.10.2 (jax.dtypes
.result_type / jnp.promote_types / jnp.issubdtype) and pasted here as data.
Tokens: ``b i8 .. c128`` are dtypes; ``1 1.0 1j True`` Python scalars;
``int float complex None`` those objects themselves; ``np:X`` a NumPy scalar;
``w:X`` / ``s:X`` a weak / strong engine value of dtype X (``s:i64`` stands
for an int64 array created while x64 was on). A trailing ``*`` marks a weak
result; ``!TPE`` is TypePromotionError and ``!VE`` a plain ValueError.
"""
import enum
import inspect
import warnings

import ml_dtypes
import numpy as np
import pytest

from xjit._src import dtypes as D
from xjit._src.config import config, enable_x64

RESULT_TYPE_X32 = """
           b    i8   i16   i32   i64    u8   u16   u32   u64   f16  bf16   f32   f64   c64  c128  True     1   1.0    1j w:i32 w:f32 w:c64
b          b    i8   i16   i32   i32    u8   u16   u32   u32   f16  bf16   f32   f32   c64   c64     b  i32*  f32*  c64*  i32*  f32*  c64*
i8        i8    i8   i16   i32   i32   i16   i32   i32   i32   f16  bf16   f32   f32   c64   c64    i8    i8  f32*  c64*    i8  f32*  c64*
i16      i16   i16   i16   i32   i32   i16   i32   i32   i32   f16  bf16   f32   f32   c64   c64   i16   i16  f32*  c64*   i16  f32*  c64*
i32      i32   i32   i32   i32   i32   i32   i32   i32   i32   f16  bf16   f32   f32   c64   c64   i32   i32  f32*  c64*   i32  f32*  c64*
i64      i32   i32   i32   i32   i32   i32   i32   i32   i32   f16  bf16   f32   f32   c64   c64   i32   i32  f32*  c64*   i32  f32*  c64*
u8        u8   i16   i16   i32   i32    u8   u16   u32   u32   f16  bf16   f32   f32   c64   c64    u8    u8  f32*  c64*    u8  f32*  c64*
u16      u16   i32   i32   i32   i32   u16   u16   u32   u32   f16  bf16   f32   f32   c64   c64   u16   u16  f32*  c64*   u16  f32*  c64*
u32      u32   i32   i32   i32   i32   u32   u32   u32   u32   f16  bf16   f32   f32   c64   c64   u32   u32  f32*  c64*   u32  f32*  c64*
u64      u32   i32   i32   i32   i32   u32   u32   u32   u32   f16  bf16   f32   f32   c64   c64   u32   u32  f32*  c64*   u32  f32*  c64*
f16      f16   f16   f16   f16   f16   f16   f16   f16   f16   f16   f32   f32   f32   c64   c64   f16   f16   f16   c64   f16   f16   c64
bf16    bf16  bf16  bf16  bf16  bf16  bf16  bf16  bf16  bf16   f32  bf16   f32   f32   c64   c64  bf16  bf16  bf16   c64  bf16  bf16   c64
f32      f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   c64   c64   f32   f32   f32   c64   f32   f32   c64
f64      f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   c64   c64   f32   f32   f32   c64   f32   f32   c64
c64      c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64
c128     c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64
True       b    i8   i16   i32   i32    u8   u16   u32   u32   f16  bf16   f32   f32   c64   c64     b  i32*  f32*  c64*  i32*  f32*  c64*
1       i32*    i8   i16   i32   i32    u8   u16   u32   u32   f16  bf16   f32   f32   c64   c64  i32*  i32*  f32*  c64*  i32*  f32*  c64*
1.0     f32*  f32*  f32*  f32*  f32*  f32*  f32*  f32*  f32*   f16  bf16   f32   f32   c64   c64  f32*  f32*  f32*  c64*  f32*  f32*  c64*
1j      c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*   c64   c64   c64   c64   c64   c64  c64*  c64*  c64*  c64*  c64*  c64*  c64*
w:i32   i32*    i8   i16   i32   i32    u8   u16   u32   u32   f16  bf16   f32   f32   c64   c64  i32*  i32*  f32*  c64*  i32*  f32*  c64*
w:f32   f32*  f32*  f32*  f32*  f32*  f32*  f32*  f32*  f32*   f16  bf16   f32   f32   c64   c64  f32*  f32*  f32*  c64*  f32*  f32*  c64*
w:c64   c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*  c64*   c64   c64   c64   c64   c64   c64  c64*  c64*  c64*  c64*  c64*  c64*  c64*
"""
RESULT_TYPE_EXTRA_X32 = """
                 b       i8       u8      i32      f16     bf16      f32      c64     True        1      1.0       1j    w:f32       i4       u4 f8e4m3fn   f8e5m2 f4e2m1fn   float0
i4              i4     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE       i4       i4     !TPE     !TPE     !TPE       i4     !TPE     !TPE     !TPE     !TPE      !VE
u4              u4     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE       u4       u4     !TPE     !TPE     !TPE     !TPE       u4     !TPE     !TPE     !TPE      !VE
f8e4m3fn  f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn     !TPE     !TPE     !TPE     !TPE f8e4m3fn f8e4m3fn f8e4m3fn     !TPE f8e4m3fn     !TPE     !TPE f8e4m3fn     !TPE     !TPE      !VE
f8e5m2      f8e5m2   f8e5m2   f8e5m2   f8e5m2     !TPE     !TPE     !TPE     !TPE   f8e5m2   f8e5m2   f8e5m2     !TPE   f8e5m2     !TPE     !TPE     !TPE   f8e5m2     !TPE      !VE
f4e2m1fn  f4e2m1fn f4e2m1fn f4e2m1fn f4e2m1fn     !TPE     !TPE     !TPE     !TPE f4e2m1fn f4e2m1fn f4e2m1fn     !TPE f4e2m1fn     !TPE     !TPE     !TPE     !TPE f4e2m1fn      !VE
float0         !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE   float0
int           i32*       i8       u8      i32      f16     bf16      f32      c64     i32*     i32*     f32*     c64*     f32*       i4       u4 f8e4m3fn   f8e5m2 f4e2m1fn      !VE
float         f32*     f32*     f32*     f32*      f16     bf16      f32      c64     f32*     f32*     f32*     c64*     f32*     !TPE     !TPE f8e4m3fn   f8e5m2 f4e2m1fn      !VE
complex       c64*     c64*     c64*     c64*      c64      c64      c64      c64     c64*     c64*     c64*     c64*     c64*     !TPE     !TPE     !TPE     !TPE     !TPE      !VE
None           f32      f32      f32      f32      f32      f32      f32      c64      f32      f32      f32      c64      f32     !TPE     !TPE     !TPE     !TPE     !TPE      !VE
np:f64         f32      f32      f32      f32      f32      f32      f32      c64      f32      f32      f32      c64      f32     !TPE     !TPE     !TPE     !TPE     !TPE      !VE
np:i64         i32      i32      i32      i32      f16     bf16      f32      c64      i32      i32     f32*     c64*     f32*     !TPE     !TPE f8e4m3fn   f8e5m2 f4e2m1fn      !VE
np:u8           u8      i16       u8      i32      f16     bf16      f32      c64       u8       u8     f32*     c64*     f32*     !TPE     !TPE f8e4m3fn   f8e5m2 f4e2m1fn      !VE
s:i64          i32      i32      i32      i32      f16     bf16      f32      c64      i32      i32     f32*     c64*     f32*     !TPE     !TPE f8e4m3fn   f8e5m2 f4e2m1fn      !VE
s:f64          f32      f32      f32      f32      f32      f32      f32      c64      f32      f32      f32      c64      f32     !TPE     !TPE     !TPE     !TPE     !TPE      !VE
"""
RESULT_TYPE_X64 = """
           b    i8   i16   i32   i64    u8   u16   u32   u64   f16  bf16   f32   f64   c64  c128  True     1   1.0    1j w:i32 w:f32 w:c64
b          b    i8   i16   i32   i64    u8   u16   u32   u64   f16  bf16   f32   f64   c64  c128     b  i64*  f64* c128*  i64*  f64* c128*
i8        i8    i8   i16   i32   i64   i16   i32   i64  f64*   f16  bf16   f32   f64   c64  c128    i8    i8  f64* c128*    i8  f64* c128*
i16      i16   i16   i16   i32   i64   i16   i32   i64  f64*   f16  bf16   f32   f64   c64  c128   i16   i16  f64* c128*   i16  f64* c128*
i32      i32   i32   i32   i32   i64   i32   i32   i64  f64*   f16  bf16   f32   f64   c64  c128   i32   i32  f64* c128*   i32  f64* c128*
i64      i64   i64   i64   i64   i64   i64   i64   i64  f64*   f16  bf16   f32   f64   c64  c128   i64   i64  f64* c128*   i64  f64* c128*
u8        u8   i16   i16   i32   i64    u8   u16   u32   u64   f16  bf16   f32   f64   c64  c128    u8    u8  f64* c128*    u8  f64* c128*
u16      u16   i32   i32   i32   i64   u16   u16   u32   u64   f16  bf16   f32   f64   c64  c128   u16   u16  f64* c128*   u16  f64* c128*
u32      u32   i64   i64   i64   i64   u32   u32   u32   u64   f16  bf16   f32   f64   c64  c128   u32   u32  f64* c128*   u32  f64* c128*
u64      u64  f64*  f64*  f64*  f64*   u64   u64   u64   u64   f16  bf16   f32   f64   c64  c128   u64   u64  f64* c128*   u64  f64* c128*
f16      f16   f16   f16   f16   f16   f16   f16   f16   f16   f16   f32   f32   f64   c64  c128   f16   f16   f16   c64   f16   f16   c64
bf16    bf16  bf16  bf16  bf16  bf16  bf16  bf16  bf16  bf16   f32  bf16   f32   f64   c64  c128  bf16  bf16  bf16   c64  bf16  bf16   c64
f32      f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   f32   f64   c64  c128   f32   f32   f32   c64   f32   f32   c64
f64      f64   f64   f64   f64   f64   f64   f64   f64   f64   f64   f64   f64   f64  c128  c128   f64   f64   f64  c128   f64   f64  c128
c64      c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64   c64  c128   c64  c128   c64   c64   c64   c64   c64   c64   c64
c128    c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128  c128
True       b    i8   i16   i32   i64    u8   u16   u32   u64   f16  bf16   f32   f64   c64  c128     b  i64*  f64* c128*  i64*  f64* c128*
1       i64*    i8   i16   i32   i64    u8   u16   u32   u64   f16  bf16   f32   f64   c64  c128  i64*  i64*  f64* c128*  i64*  f64* c128*
1.0     f64*  f64*  f64*  f64*  f64*  f64*  f64*  f64*  f64*   f16  bf16   f32   f64   c64  c128  f64*  f64*  f64* c128*  f64*  f64* c128*
1j     c128* c128* c128* c128* c128* c128* c128* c128* c128*   c64   c64   c64  c128   c64  c128 c128* c128* c128* c128* c128* c128* c128*
w:i32   i64*    i8   i16   i32   i64    u8   u16   u32   u64   f16  bf16   f32   f64   c64  c128  i64*  i64*  f64* c128*  i64*  f64* c128*
w:f32   f64*  f64*  f64*  f64*  f64*  f64*  f64*  f64*  f64*   f16  bf16   f32   f64   c64  c128  f64*  f64*  f64* c128*  f64*  f64* c128*
w:c64  c128* c128* c128* c128* c128* c128* c128* c128* c128*   c64   c64   c64  c128   c64  c128 c128* c128* c128* c128* c128* c128* c128*
"""
RESULT_TYPE_EXTRA_X64 = """
                 b       i8       u8      i32      f16     bf16      f32      c64     True        1      1.0       1j    w:f32       i4       u4 f8e4m3fn   f8e5m2 f4e2m1fn   float0
i4              i4     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE       i4       i4     !TPE     !TPE     !TPE       i4     !TPE     !TPE     !TPE     !TPE      !VE
u4              u4     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE       u4       u4     !TPE     !TPE     !TPE     !TPE       u4     !TPE     !TPE     !TPE      !VE
f8e4m3fn  f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn     !TPE     !TPE     !TPE     !TPE f8e4m3fn f8e4m3fn f8e4m3fn     !TPE f8e4m3fn     !TPE     !TPE f8e4m3fn     !TPE     !TPE      !VE
f8e5m2      f8e5m2   f8e5m2   f8e5m2   f8e5m2     !TPE     !TPE     !TPE     !TPE   f8e5m2   f8e5m2   f8e5m2     !TPE   f8e5m2     !TPE     !TPE     !TPE   f8e5m2     !TPE      !VE
f4e2m1fn  f4e2m1fn f4e2m1fn f4e2m1fn f4e2m1fn     !TPE     !TPE     !TPE     !TPE f4e2m1fn f4e2m1fn f4e2m1fn     !TPE f4e2m1fn     !TPE     !TPE     !TPE     !TPE f4e2m1fn      !VE
float0         !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE   float0
int           i64*       i8       u8      i32      f16     bf16      f32      c64     i64*     i64*     f64*    c128*     f64*       i4       u4 f8e4m3fn   f8e5m2 f4e2m1fn      !VE
float         f64*     f64*     f64*     f64*      f16     bf16      f32      c64     f64*     f64*     f64*    c128*     f64*     !TPE     !TPE f8e4m3fn   f8e5m2 f4e2m1fn      !VE
complex      c128*    c128*    c128*    c128*      c64      c64      c64      c64    c128*    c128*    c128*    c128*    c128*     !TPE     !TPE     !TPE     !TPE     !TPE      !VE
None           f64      f64      f64      f64      f64      f64      f64     c128      f64      f64      f64     c128      f64     !TPE     !TPE     !TPE     !TPE     !TPE      !VE
np:f64         f64      f64      f64      f64      f64      f64      f64     c128      f64      f64      f64     c128      f64     !TPE     !TPE     !TPE     !TPE     !TPE      !VE
np:i64         i64      i64      i64      i64      f16     bf16      f32      c64      i64      i64     f64*    c128*     f64*     !TPE     !TPE f8e4m3fn   f8e5m2 f4e2m1fn      !VE
np:u8           u8      i16       u8      i32      f16     bf16      f32      c64       u8       u8     f64*    c128*     f64*     !TPE     !TPE f8e4m3fn   f8e5m2 f4e2m1fn      !VE
s:i64          i64      i64      i64      i64      f16     bf16      f32      c64      i64      i64     f64*    c128*     f64*     !TPE     !TPE f8e4m3fn   f8e5m2 f4e2m1fn      !VE
s:f64          f64      f64      f64      f64      f64      f64      f64     c128      f64      f64      f64     c128      f64     !TPE     !TPE     !TPE     !TPE     !TPE      !VE
"""
RESULT_TYPE_MULTI = [
    ('i8 u8 f16', 'f16', 'f16'),
    ('1 1.0 1j', 'c64*', 'c128*'),
    ('True 1', 'i32*', 'i64*'),
    ('u8 i8 1.0', 'f32*', 'f64*'),
    ('bf16 f16 1j', 'c64', 'c64'),
    ('u32 i32 1', 'i32', 'i64'),
    ('i4', 'i4', 'i4'),
    ('1', 'i32*', 'i64*'),
    ('True', 'b', 'b'),
    ('w:f32', 'f32*', 'f64*'),
    ('f64', 'f32', 'f64'),
    ('s:i64', 'i64', 'i64'),
    ('None', 'f32', 'f64'),
    ('float0 float0', 'float0', 'float0'),
    ('u64 i64 1', 'i32', 'f64*'),
    ('u64 i64', 'i32', 'f64*'),
    ('i8 i8 i8', 'i8', 'i8'),
    ('1 1 1', 'i32*', 'i64*'),
    ('True True', 'b', 'b'),
    ('f16 bf16 f16', 'f32', 'f32'),
    ('s:i64 i32', 'i32', 'i64'),
]
PROMOTE_TYPES_X32 = """
                 b       i8      i64       u8      u32      u64      f16     bf16      f32      f64      c64     c128      int    float  complex       i4 f8e4m3fn   float0
b                b       i8      i64       u8      u32      u64      f16     bf16      f32      f64      c64     c128      i64      f64     c128       i4 f8e4m3fn      !VE
i8              i8       i8      i64      i16      i32      f64      f16     bf16      f32      f64      c64     c128       i8      f64     c128     !TPE f8e4m3fn      !VE
i64            i64      i64      i64      i64      i64      f64      f16     bf16      f32      f64      c64     c128      i64      f64     c128     !TPE f8e4m3fn      !VE
u8              u8      i16      i64       u8      u32      u64      f16     bf16      f32      f64      c64     c128       u8      f64     c128     !TPE f8e4m3fn      !VE
u32            u32      i32      i64      u32      u32      u64      f16     bf16      f32      f64      c64     c128      u32      f64     c128     !TPE f8e4m3fn      !VE
u64            u64      f64      f64      u64      u64      u64      f16     bf16      f32      f64      c64     c128      u64      f64     c128     !TPE f8e4m3fn      !VE
f16            f16      f16      f16      f16      f16      f16      f16      f32      f32      f64      c64     c128      f16      f16      c64     !TPE     !TPE      !VE
bf16          bf16     bf16     bf16     bf16     bf16     bf16      f32     bf16      f32      f64      c64     c128     bf16     bf16      c64     !TPE     !TPE      !VE
f32            f32      f32      f32      f32      f32      f32      f32      f32      f32      f64      c64     c128      f32      f32      c64     !TPE     !TPE      !VE
f64            f64      f64      f64      f64      f64      f64      f64      f64      f64      f64     c128     c128      f64      f64     c128     !TPE     !TPE      !VE
c64            c64      c64      c64      c64      c64      c64      c64      c64      c64     c128      c64     c128      c64      c64      c64     !TPE     !TPE      !VE
c128          c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     !TPE     !TPE      !VE
int            i64       i8      i64       u8      u32      u64      f16     bf16      f32      f64      c64     c128      i64      f64     c128       i4 f8e4m3fn      !VE
float          f64      f64      f64      f64      f64      f64      f16     bf16      f32      f64      c64     c128      f64      f64     c128     !TPE f8e4m3fn      !VE
complex       c128     c128     c128     c128     c128     c128      c64      c64      c64     c128      c64     c128     c128     c128     c128     !TPE     !TPE      !VE
i4              i4     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE       i4     !TPE     !TPE       i4     !TPE      !VE
f8e4m3fn  f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE f8e4m3fn f8e4m3fn     !TPE     !TPE f8e4m3fn      !VE
float0         !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE
"""
PROMOTE_TYPES_X64 = """
                 b       i8      i64       u8      u32      u64      f16     bf16      f32      f64      c64     c128      int    float  complex       i4 f8e4m3fn   float0
b                b       i8      i64       u8      u32      u64      f16     bf16      f32      f64      c64     c128      i64      f64     c128       i4 f8e4m3fn      !VE
i8              i8       i8      i64      i16      i64      f64      f16     bf16      f32      f64      c64     c128       i8      f64     c128     !TPE f8e4m3fn      !VE
i64            i64      i64      i64      i64      i64      f64      f16     bf16      f32      f64      c64     c128      i64      f64     c128     !TPE f8e4m3fn      !VE
u8              u8      i16      i64       u8      u32      u64      f16     bf16      f32      f64      c64     c128       u8      f64     c128     !TPE f8e4m3fn      !VE
u32            u32      i64      i64      u32      u32      u64      f16     bf16      f32      f64      c64     c128      u32      f64     c128     !TPE f8e4m3fn      !VE
u64            u64      f64      f64      u64      u64      u64      f16     bf16      f32      f64      c64     c128      u64      f64     c128     !TPE f8e4m3fn      !VE
f16            f16      f16      f16      f16      f16      f16      f16      f32      f32      f64      c64     c128      f16      f16      c64     !TPE     !TPE      !VE
bf16          bf16     bf16     bf16     bf16     bf16     bf16      f32     bf16      f32      f64      c64     c128     bf16     bf16      c64     !TPE     !TPE      !VE
f32            f32      f32      f32      f32      f32      f32      f32      f32      f32      f64      c64     c128      f32      f32      c64     !TPE     !TPE      !VE
f64            f64      f64      f64      f64      f64      f64      f64      f64      f64      f64     c128     c128      f64      f64     c128     !TPE     !TPE      !VE
c64            c64      c64      c64      c64      c64      c64      c64      c64      c64     c128      c64     c128      c64      c64      c64     !TPE     !TPE      !VE
c128          c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     c128     !TPE     !TPE      !VE
int            i64       i8      i64       u8      u32      u64      f16     bf16      f32      f64      c64     c128      i64      f64     c128       i4 f8e4m3fn      !VE
float          f64      f64      f64      f64      f64      f64      f16     bf16      f32      f64      c64     c128      f64      f64     c128     !TPE f8e4m3fn      !VE
complex       c128     c128     c128     c128     c128     c128      c64      c64      c64     c128      c64     c128     c128     c128     c128     !TPE     !TPE      !VE
i4              i4     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE       i4     !TPE     !TPE       i4     !TPE      !VE
f8e4m3fn  f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn     !TPE     !TPE     !TPE     !TPE     !TPE     !TPE f8e4m3fn f8e4m3fn     !TPE     !TPE f8e4m3fn      !VE
float0         !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE      !VE
"""
ISSUBDTYPE = """
              gener numbe integ signe unsig inexa float compl bool_  void
bool              1     0     0     0     0     0     0     0     1     0
int8              1     1     1     1     0     0     0     0     0     0
uint8             1     1     1     0     1     0     0     0     0     0
int64             1     1     1     1     0     0     0     0     0     0
float16           1     1     0     0     0     1     1     0     0     0
bfloat16          1     1     0     0     0     1     1     0     0     0
float32           1     1     0     0     0     1     1     0     0     0
float64           1     1     0     0     0     1     1     0     0     0
complex64         1     1     0     0     0     1     0     1     0     0
float8_e4m3fn     1     1     0     0     0     1     1     0     0     0
float4_e2m1fn     1     1     0     0     0     1     1     0     0     0
int4              1     1     1     1     0     0     0     0     0     0
uint4             1     1     1     0     1     0     0     0     0     0
int2              1     1     1     1     0     0     0     0     0     0
float0            1     0     0     0     0     0     0     0     0     1
"""


class _Val:
    """Stand-in for an engine array/tracer: only ``dtype`` and ``weak_type``."""

    def __init__(self, dtype, weak_type):
        self.dtype, self.weak_type = np.dtype(dtype), weak_type


DT = {"b": D.bool_, "i8": D.int8, "i16": D.int16, "i32": D.int32, "i64": D.int64,
      "u8": D.uint8, "u16": D.uint16, "u32": D.uint32, "u64": D.uint64,
      "f16": D.float16, "bf16": D.bfloat16, "f32": D.float32, "f64": D.float64,
      "c64": D.complex64, "c128": D.complex128, "i4": D.int4, "u4": D.uint4,
      "f8e4m3fn": D.float8_e4m3fn, "f8e5m2": D.float8_e5m2,
      "f4e2m1fn": D.float4_e2m1fn, "float0": D.float0}
LITERALS = {"1": 1, "1.0": 1.0, "1j": 1j, "True": True, "int": int,
            "float": float, "complex": complex, "None": None}


def make(tok):
    if tok in LITERALS:
        return LITERALS[tok]
    kind, _, name = tok.rpartition(":")
    if kind == "np":
        return DT[name].type(1)
    if kind in ("w", "s"):
        return _Val(DT[name], kind == "w")
    return DT[tok]


def rows(table):
    lines = table.strip("\n").splitlines()
    cols = lines[0].split()
    for line in lines[1:]:
        head, *cells = line.split()
        yield head, list(zip(cols, cells))


def outcome(fn):
    """Run ``fn`` and render its result in the tables' notation."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn()
    except D.TypePromotionError:
        return "!TPE"
    except ValueError:
        return "!VE"
    dt, weak = out if isinstance(out, tuple) else (out, False)
    name = next(k for k, v in DT.items() if v == dt and dt.names == v.names)
    return name + ("*" if weak else "")


def table_cases(table, x64):
    return [pytest.param(x64, head, cells, id=f"x{64 if x64 else 32}-{head}")
            for head, cells in rows(table)]


@pytest.mark.parametrize("x64,row,cells",
                         table_cases(RESULT_TYPE_X32, False) + table_cases(RESULT_TYPE_X64, True)
                         + table_cases(RESULT_TYPE_EXTRA_X32, False)
                         + table_cases(RESULT_TYPE_EXTRA_X64, True))
def test_result_type_table(x64, row, cells):
    with enable_x64(x64):
        got = [(col, outcome(lambda: D.result_type(make(row), make(col),
                                                   return_weak_type_flag=True)))
               for col, _ in cells]
    assert got == cells


@pytest.mark.parametrize("args,x32,x64", RESULT_TYPE_MULTI)
def test_result_type_multi(args, x32, x64):
    for flag, expected in ((False, x32), (True, x64)):
        with enable_x64(flag):
            vals = [make(t) for t in args.split()]
            assert outcome(lambda: D.result_type(*vals, return_weak_type_flag=True)) == expected


def test_result_type_without_flag_returns_dtype():
    assert D.result_type(np.int8, 1.0) == np.dtype("float32")
    assert isinstance(D.result_type(1), np.dtype)


@pytest.mark.parametrize("x64,row,cells",
                         table_cases(PROMOTE_TYPES_X32, False) + table_cases(PROMOTE_TYPES_X64, True))
def test_promote_types_table(x64, row, cells):
    with enable_x64(x64):
        got = [(col, outcome(lambda: D.promote_types(make(row), make(col)))) for col, _ in cells]
    assert got == cells


def test_promote_types_accepts_dtype_specs():
    assert D.promote_types("int32", "float32") == np.float32
    assert D.promote_types(np.uint16, np.dtype("int32")) == np.int32
    assert D.promote_types("uint8", int) == np.uint8
    assert D.promote_types(None, "int8") == np.float64


# --- errors --------------------------------------------------------------------

def test_promotion_error_messages():
    tail = (" have no available implicit dtype promotion path. To avoid unintended "
            "promotion, 1-bit, 2-bit and 4-bit integers do not support implicit promotion. "
            "If you'd like your inputs to be promoted to another type, you can do so "
            "explicitly using e.g. x.astype('int32')")
    with pytest.raises(D.TypePromotionError) as e:
        D.promote_types(D.int4, D.int8)
    assert str(e.value) == "Input dtypes ('int4', 'int8')" + tail
    with pytest.raises(D.TypePromotionError) as e:  # names come in set order, as in JAX
        D.result_type(D.int4, D.int8)
    assert str(e.value) in ("Input dtypes ('int4', 'int8')" + tail,
                            "Input dtypes ('int8', 'int4')" + tail)
    with pytest.raises(D.TypePromotionError) as e:
        D.promote_types(D.float8_e4m3fn, "float16")
    assert str(e.value) == (
        "Input dtypes ('float8_e4m3fn', 'float16') have no available implicit dtype "
        "promotion path. To avoid unintended promotion, 8-bit floats do not support "
        "implicit promotion. If you'd like your inputs to be promoted to another type, "
        "you can do so explicitly using e.g. x.astype('float32')")
    with pytest.raises(D.TypePromotionError, match=r"\('float8_e4m3fn', \"<class 'complex'>\"\)"):
        D.promote_types(D.float8_e4m3fn, complex)
    with pytest.raises(D.TypePromotionError, match="4-bit floats do not support"):
        D.promote_types(D.float4_e2m1fn, "float32")
    with pytest.raises(D.TypePromotionError, match="6-bit floats do not support"):
        D.promote_types(D.float6_e2m3fn, "float32")
    assert issubclass(D.TypePromotionError, ValueError)


def test_invalid_lattice_dtype_errors():
    with pytest.raises(ValueError) as e:
        D.result_type(D.float0, np.float32)
    assert str(e.value) == ("dtype=dtype([('float0', 'V')]) is not a valid dtype "
                            "for JAX type promotion.")
    with pytest.raises(ValueError, match=r"^dtype=StringDType\(\) is not a valid"):
        D.promote_types("T", "T")


def test_result_type_bad_inputs():
    with pytest.raises(ValueError, match="^at least one array or dtype is required$"):
        D.result_type()
    with pytest.raises(TypeError, match=r"^Cannot determine dtype of \[1, 2\]$"):
        D.result_type([1, 2])
    with pytest.raises(TypeError) as e:
        D.result_type("U3")
    assert str(e.value) == ("Value 'U3' with dtype <U3 is not a valid JAX array type. "
                            "Only arrays of numeric types are supported by JAX.")
    with pytest.raises(TypeError, match=r"^Value '<class 'object'>' with dtype object is not"):
        D.result_type(object)
    with pytest.raises(TypeError, match="^data type 'foo' not understood$"):
        D.result_type("foo")


# --- explicit 64-bit requests ----------------------------------------------------

def _x64_message(requested, where, narrow):
    return (f"Explicitly requested dtype {requested}{where} is not available, and will be "
            f"truncated to dtype {narrow}. To enable more dtypes, set the jax_enable_x64 "
            "configuration option or the JAX_ENABLE_X64 shell environment variable. "
            "See https://github.com/jax-ml/jax#current-gotchas for more.")


def zeros(dtype):
    """Plays an API function that validates its ``dtype`` argument."""
    return D.check_user_dtype_supported(dtype, "zeros")


@pytest.mark.parametrize("spec,narrow", [("float64", "float32"), (np.int64, "int32"),
                                         (np.dtype("uint64"), "uint32"),
                                         ("complex128", "complex64")])
def test_explicit_64bit_request_warns_and_narrows(spec, narrow):
    with pytest.warns(UserWarning) as rec:
        line = inspect.currentframe().f_lineno + 1
        out = zeros(spec)
    assert out == np.dtype(narrow)
    assert len(rec) == 1
    assert str(rec[0].message) == _x64_message(np.dtype(spec), " requested in zeros", narrow)
    assert (rec[0].filename, rec[0].lineno) == (__file__, line)  # blames the user's call


def test_explicit_request_message_variants():
    with pytest.warns(UserWarning) as rec:
        D.check_user_dtype_supported(np.float64, "array")
        D.check_user_dtype_supported("float64")
    assert [str(r.message) for r in rec] == [
        _x64_message("float64", " requested in array", "float32"),
        _x64_message("float64", "", "float32")]


def test_no_warning_when_allowed():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with enable_x64(True):
            assert zeros("float64") == np.float64
            assert zeros(int) == np.int64
        assert zeros("float32") == np.float32
        assert zeros(D.bfloat16) == D.bfloat16
        assert zeros(int) == np.int32
        assert zeros(float) == np.float32
        assert zeros(complex) == np.complex64
        assert zeros(bool) == np.bool_
        assert zeros("T") == np.dtypes.StringDType()
        assert zeros(None) is None


def test_unsupported_user_dtypes():
    for spec, shown in [("U", "U"), (object, "<class 'object'>"), (np.dtype("S3"), "|S3"),
                        (np.dtype("M8"), "datetime64")]:
        with pytest.raises(TypeError) as e:
            zeros(spec)
        assert str(e.value) == ("JAX only supports number, bool, and string dtypes, "
                                f"got dtype {shown} in zeros")
    with pytest.raises(TypeError, match="got dtype U$"):
        D.check_user_dtype_supported("U")
    with pytest.raises(TypeError, match="^data type 'foo' not understood$"):
        zeros("foo")
    with pytest.raises(ValueError, match="^Passing an array as a dtype argument"):
        zeros(_Val("float32", False))


def test_result_type_warns_for_named_64bit_dtypes_only():
    with pytest.warns(UserWarning) as rec:
        assert D.result_type(np.uint64, np.int64) == np.int32
    assert [str(r.message) for r in rec] == [
        _x64_message("uint64", " requested in dtype", "uint32"),
        _x64_message("int64", " requested in dtype", "int32")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert D.result_type(np.zeros(2), np.int64(1), 2**63) == np.float32
        assert D.result_type(_Val("int64", False)) == np.int64  # kept: made under x64


def test_x64_value_joined_under_x32_narrows_with_warning():
    with pytest.warns(UserWarning, match="requested in dtype"):
        assert D.result_type(_Val("int64", False), 1, return_weak_type_flag=True) == (
            np.int32, False)


# --- canonicalization and defaults ------------------------------------------------

def test_canonicalize_dtype():
    cases = {"float64": ("float32", "float64"), np.int64: ("int32", "int64"),
             "uint64": ("uint32", "uint64"), np.complex128: ("complex64", "complex128"),
             int: ("int32", "int64"), float: ("float32", "float64"),
             complex: ("complex64", "complex128"), bool: ("bool", "bool"),
             None: ("float32", "float64"), "int8": ("int8", "int8"),
             D.bfloat16: ("bfloat16", "bfloat16"), "U3": ("<U3", "<U3"),
             D.float0: (D.float0, D.float0)}
    for spec, (x32, x64) in cases.items():
        for flag, expected in ((False, x32), (True, x64)):
            with enable_x64(flag):
                got = D.canonicalize_dtype(spec)
                assert type(got) is type(np.dtype(expected)) and got == np.dtype(expected)
    with pytest.raises(TypeError, match="^dtype 'foo' not understood$"):
        D.canonicalize_dtype("foo")
    assert D.canonicalize_dtype([("a", "i8")]) == np.dtype([("a", "i8")])


def test_canonicalize_follows_flag_updates():
    assert D.canonicalize_dtype("float64") == np.float32
    config.update("jax_enable_x64", True)
    try:
        assert D.canonicalize_dtype("float64") == np.float64
    finally:
        config.update("jax_enable_x64", False)
    assert D.canonicalize_dtype("float64") == np.float32


def test_defaults():
    assert (D.default_int_dtype(), D.default_uint_dtype(), D.default_float_dtype(),
            D.default_complex_dtype()) == (np.int32, np.uint32, np.float32, np.complex64)
    with enable_x64(True):
        assert (D.default_int_dtype(), D.default_uint_dtype(), D.default_float_dtype(),
                D.default_complex_dtype()) == (np.int64, np.uint64, np.float64, np.complex128)
    assert D.python_scalar_dtypes == {bool: np.dtype(bool), int: np.dtype("int64"),
                                      float: np.dtype("float64"),
                                      complex: np.dtype("complex128")}


def test_constants():
    assert D.float0 == np.dtype([("float0", np.void, 0)]) and D.float0.itemsize == 0
    assert D.bfloat16 == np.dtype(ml_dtypes.bfloat16)
    assert D.float8_e4m3fn == np.dtype(ml_dtypes.float8_e4m3fn)
    assert all(isinstance(getattr(D, n), np.dtype) for n in (
        "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
        "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"))


# --- dtype() and weak types ---------------------------------------------------------

class _Color(enum.IntEnum):
    RED = 1


def test_dtype_of_values():
    cases = [(1, "int32", "int64"), (2**63, "int32", "int64"), (1.0, "float32", "float64"),
             (True, "bool", "bool"), (1j, "complex64", "complex128"), (int, "int32", "int64"),
             (float, "float32", "float64"), (bool, "bool", "bool"),
             (complex, "complex64", "complex128"), (_Color.RED, "int64", "int64")]
    for x, x32, x64 in cases:
        assert D.dtype(x) == np.dtype(x32)
        with enable_x64(True):
            assert D.dtype(x) == np.dtype(x64)


def test_dtype_canonicalize():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert D.dtype(np.zeros(2)) == np.float64
        assert D.dtype(np.zeros(2), canonicalize=True) == np.float32
        assert D.dtype(np.int64(3), canonicalize=True) == np.int32
        assert D.dtype(_Color.RED, canonicalize=True) == np.int32
        assert D.dtype("float64") == np.float64
        assert D.dtype(_Val("float64", False), canonicalize=True) == np.float64
        assert D.dtype(D.bfloat16, canonicalize=True) == D.bfloat16
        assert D.dtype(D.float0, canonicalize=True) == D.float0
    for spec in (np.float64, "float64", np.dtype("float64")):
        with pytest.warns(UserWarning, match="requested in dtype is not available"):
            assert D.dtype(spec, canonicalize=True) == np.float32


def test_dtype_errors():
    with pytest.raises(ValueError, match=r"^Invalid argument to dtype: None\.$"):
        D.dtype(None)
    with pytest.raises(TypeError, match=r"^Cannot determine dtype of \(1\.0, 2\)$"):
        D.dtype((1.0, 2))
    with pytest.raises(TypeError) as e:
        D.dtype(np.zeros(2, "U3"))
    assert str(e.value) == ("Value '['' '']' with dtype <U3 is not a valid JAX array type. "
                            "Only arrays of numeric types are supported by JAX.")


def test_is_weakly_typed():
    assert D.is_weakly_typed(1) and D.is_weakly_typed(1.0) and D.is_weakly_typed(1j)
    assert not D.is_weakly_typed(True)
    assert not D.is_weakly_typed(_Color.RED)
    assert not D.is_weakly_typed(np.float64(1)) and not D.is_weakly_typed(np.zeros(2))
    assert not D.is_weakly_typed(int)
    assert D.is_weakly_typed(_Val("float32", True))
    assert not D.is_weakly_typed(_Val("float32", False))


# --- hierarchy, info, names, conversions --------------------------------------------

ISSUBDTYPE_COLS = [np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger,
                   np.inexact, np.floating, np.complexfloating, np.bool_, np.void]


@pytest.mark.parametrize("name,cells", list(rows(ISSUBDTYPE)))
def test_issubdtype_table(name, cells):
    dt = {"float0": D.float0, "bool": D.bool_}[name] if name in ("float0", "bool") else getattr(D, name)
    got = [str(int(D.issubdtype(dt, b))) for b in ISSUBDTYPE_COLS]
    assert got == [v for _, v in cells]


def test_issubdtype_misc():
    assert D.issubdtype(D.bfloat16, D.bfloat16) and D.issubdtype(D.float0, D.float0)
    assert not D.issubdtype(np.float32, D.bfloat16)
    assert not D.issubdtype("float32", float)
    assert D.issubdtype(float, np.floating) and D.issubdtype(int, np.integer)
    assert D.issubdtype(None, np.float64)
    with pytest.raises(TypeError, match="^data type 'foo' not understood$"):
        D.issubdtype("foo", float)


def test_kind_predicates():
    assert D.is_float(D.bfloat16) and D.is_float("float16") and not D.is_float("int8")
    assert D.is_int(D.int4) and D.is_int("uint8") and not D.is_int(bool)
    assert D.is_complex("complex64") and not D.is_complex("float64")
    assert D.is_inexact(D.float8_e5m2) and D.is_inexact("complex128")
    assert not D.is_inexact("int32") and not D.is_float(D.float0)


def test_finfo_iinfo():
    assert D.finfo(D.bfloat16).eps == 0.0078125
    assert float(D.finfo(D.bfloat16).max) == float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    assert float(D.finfo(D.float8_e4m3fn).max) == 448.0
    assert D.finfo(np.float32).eps == np.finfo(np.float32).eps
    assert (D.iinfo(D.int4).min, D.iinfo(D.int4).max, D.iinfo(D.uint4).max) == (-8, 7, 15)
    assert D.iinfo("int16").max == 32767
    with pytest.raises(ValueError):
        D.finfo(np.int32)


SHORT_NAMES = {
    "bool": "bool", "int8": "i8", "uint8": "u8", "int64": "i64", "float16": "f16",
    "bfloat16": "bf16", "float32": "f32", "float64": "f64", "complex64": "c64",
    "float8_e4m3fn": "f8_e4m3fn", "float4_e2m1fn": "f4_e2m1fn", "int4": "i4", "uint4": "u4",
    "int2": "i2", "float0": "float0", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "int16": "i16", "int32": "i32", "complex128": "c128", "float8_e5m2": "f8_e5m2",
    "float8_e4m3b11fnuz": "f8_e4m3b11fnuz", "float6_e2m3fn": "f6_e2m3fn", "uint1": "u1",
    "int1": "i1", "float8_e8m0fnu": "f8_e8m0fnu"}


def test_short_name():
    got = {n: D.short_name(D.float0 if n == "float0" else getattr(D, n if n != "bool" else "bool_"))
           for n in SHORT_NAMES}
    assert got == SHORT_NAMES
    assert D.short_name("float32") == "f32"


TO_INEXACT_COMPLEX = {
    "bool_": ("float32", "complex64"), "int8": ("float32", "complex64"),
    "uint8": ("float32", "complex64"), "int64": ("float64", "complex128"),
    "float16": ("float16", "complex64"), "bfloat16": ("bfloat16", "complex64"),
    "float32": ("float32", "complex64"), "float64": ("float64", "complex128"),
    "complex64": ("complex64", "complex64"), "float8_e4m3fn": ("float8_e4m3fn", "complex64"),
    "int4": ("float32", "complex64"), "uint4": ("float32", "complex64"),
    "int2": ("int2", "complex64"), "uint16": ("float32", "complex64"),
    "uint32": ("float32", "complex64"), "uint64": ("float64", "complex128"),
    "int16": ("float32", "complex64"), "int32": ("float32", "complex64"),
    "complex128": ("complex128", "complex128")}


def test_to_inexact_and_complex():
    for flag in (False, True):  # neither depends on the x64 flag
        with enable_x64(flag):
            got = {n: (str(D.to_inexact_dtype(getattr(D, n))),
                       str(D.to_complex_dtype(getattr(D, n))))
                   for n in TO_INEXACT_COMPLEX}
            assert got == TO_INEXACT_COMPLEX


def test_scalar_types_compare_as_jax():
    """``jnp.float32 == np.float32`` and ``!=`` on the scalar types, as JAX
    0.10.2 answers (optax compares ``dtype != jnp.float16``)."""
    import xjit.numpy as jnp
    got = [jnp.float16 != jnp.float16, jnp.float32 != jnp.float16, jnp.float32 == np.float32,
           jnp.float32 != np.float32, jnp.int8 != "int8", jnp.bfloat16 == jnp.bfloat16]
    assert got == [False, True, True, False, True, True]
    assert len({jnp.float32, np.float32}) == 1
