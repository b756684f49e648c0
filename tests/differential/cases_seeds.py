"""Every code example of the reference documents (../shared/seeds), as run by
JAX 0.10.2: printed output, values, dtypes, reprs and error classes."""

CASES = [
    # ---- faq.rst
    ("faq-impure-nojit", '''
y = 0
def impure_func(x):
  print("Inside:", y)
  return x + y
for y in range(3):
  print("Result:", impure_func(y))
result = None'''),
    ("faq-impure-jit", '''
y = 0
@jax.jit
def impure_func(x):
  print("Inside:", y)
  return x + y
for y in range(3):
  print("Result:", impure_func(y))
result = None'''),
    ("faq-numerics-log-sqrt", '''
def f(x):
  return jnp.log(jnp.sqrt(x))
x = jnp.pi
print(f(x))
print(jax.jit(f)(x))
result = None'''),
    ("faq-numerics-log-exp", '''
def f(x):
  return jnp.log(jnp.exp(x))
x = 100.0
print(f(x))
print(jax.jit(f)(x))
result = None'''),
    ("faq-method-error", '''
class CustomClass:
  def __init__(self, x, mul):
    self.x = x
    self.mul = mul
  @jax.jit
  def calc(self, y):
    if self.mul:
      return self.x * y
    return y
c = CustomClass(2, True)
result = c.calc(3)'''),
    ("faq-method-helper", '''
from functools import partial
class CustomClass:
  def __init__(self, x, mul):
    self.x = x
    self.mul = mul
  def calc(self, y):
    return _calc(self.mul, self.x, y)
@partial(jax.jit, static_argnums=0)
def _calc(mul, x, y):
  if mul:
    return x * y
  return y
c = CustomClass(2, True)
print(c.calc(3))
result = None'''),
    ("faq-method-static-self", '''
from functools import partial
class CustomClass:
  def __init__(self, x, mul):
    self.x = x
    self.mul = mul
  @partial(jax.jit, static_argnums=0)
  def calc(self, y):
    if self.mul:
      return self.x * y
    return y
c = CustomClass(2, True)
print(c.calc(3))
c.mul = False
print(c.calc(3))
result = None'''),
    ("faq-method-hash", '''
from functools import partial
class CustomClass:
  def __init__(self, x, mul):
    self.x = x
    self.mul = mul
  @partial(jax.jit, static_argnums=0)
  def calc(self, y):
    if self.mul:
      return self.x * y
    return y
  def __hash__(self):
    return hash((self.x, self.mul))
  def __eq__(self, other):
    return (isinstance(other, CustomClass) and
            (self.x, self.mul) == (other.x, other.mul))
c = CustomClass(2, True)
print(c.calc(3))
c = CustomClass(2, False)
print(c.calc(3))
result = None'''),
    ("faq-method-pytree", '''
class CustomClass:
  def __init__(self, x, mul):
    self.x = x
    self.mul = mul
  @jax.jit
  def calc(self, y):
    if self.mul:
      return self.x * y
    return y
  def _tree_flatten(self):
    children = (self.x,)
    aux_data = {'mul': self.mul}
    return (children, aux_data)
  @classmethod
  def _tree_unflatten(cls, aux_data, children):
    return cls(*children, **aux_data)
jax.tree_util.register_pytree_node(CustomClass, CustomClass._tree_flatten,
                                   CustomClass._tree_unflatten)
c = CustomClass(2, True)
print(c.calc(3))
c.mul = False
print(c.calc(3))
c = CustomClass(jnp.array(2), True)
print(c.calc(3))
result = None'''),
    ("faq-devices", "result = jnp.ones(3).devices()"),
    ("faq-device-put", "arr = jax.device_put(1, jax.devices()[0])\nresult = arr.devices()"),
    ("faq-benchmark", '''
def f(x):
  return x.T @ (x - x.mean(axis=0))
x_np = np.ones((100, 100), dtype=np.float32)
x_jax = jax.device_put(x_np)
f_jit = jax.jit(f)
result = f_jit(x_jax).block_until_ready()'''),
    ("faq-tracer-print", '''
def func(x):
  print(x)
  return jnp.cos(x)
result = jax.jit(func)(0.)'''),
    ("faq-divide-static", '''
def divide(x, y):
  return x / y if y >= 1. else 0.
result = jax.jit(divide, static_argnums=1)(3., 2.)'''),
    ("faq-divide-traced", '''
def divide(x, y):
  return x / y if y >= 1. else 0.
result = jax.jit(divide)(3., 2.)'''),
    ("faq-divide-grad", '''
def divide(x, y):
  return x / y if y >= 1. else 0.
result = jax.grad(divide)(3., 2.)'''),
    ("faq-donate", '''
def add(x, y):
  return x + y
x = jax.device_put(np.ones((2, 3)))
y = jax.device_put(np.ones((2, 3)))
z = jax.jit(add, donate_argnums=(1,))(x, y)
print(z)
result = y.is_deleted()'''),
    ("faq-donate-pytree", '''
def add_ones(xs):
  return [x + 1 for x in xs]
xs = [jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((3, 4)))]
z = jax.jit(add_ones, donate_argnums=0)(xs)
print(z[1])
result = [x.is_deleted() for x in xs]'''),
    ("faq-donate-reuse", '''
def add(x, y):
  return x + y
x = jax.device_put(np.ones((2, 3)))
y = jax.device_put(np.ones((2, 3)))
z = jax.jit(add, donate_argnums=(1,))(x, y)
result = y + 1'''),
    ("faq-donate-unusable", '''
import warnings
def add(x, y):
  return x + y
x = jax.device_put(np.ones((2, 3)))
y = jax.device_put(np.ones((2, 3)))
with warnings.catch_warnings(record=True) as w:
  warnings.simplefilter("always")
  z = jax.jit(add, donate_argnums=(0, 1))(x, y)
print([str(m.message) for m in w])
result = z'''),
    ("faq-donate-shape", '''
import warnings
def add(x, y):
  return x + y
x = jax.device_put(np.ones((2, 3)))
y = jax.device_put(np.ones((1, 3)))
with warnings.catch_warnings(record=True) as w:
  warnings.simplefilter("always")
  z = jax.jit(add, donate_argnums=(1,))(x, y)
print([str(m.message) for m in w])
result = z'''),
    ("faq-where-nan", '''
def my_log(x):
  return jnp.where(x > 0., jnp.log(x), 0.)
print(my_log(0.))
result = jax.grad(my_log)(0.)'''),
    ("faq-where-safe", '''
def safe_for_grad_log(x):
  return jnp.log(jnp.where(x > 0., x, 1.))
print(safe_for_grad_log(0.))
result = jax.grad(safe_for_grad_log)(0.)'''),
    ("faq-where-log-or-y", '''
def my_log_or_y(x, y):
  return jnp.where(x > 0., jnp.log(jnp.where(x > 0., x, 1.)), y)
result = jax.grad(my_log_or_y)(0., 2.)'''),
    ("faq-sort-grad", '''
def f(x):
  return (x > 0).astype(float)
df = jax.vmap(jax.grad(f))
x = jnp.array([-1.0, -0.5, 0.0, 0.5, 1.0])
print(f"f(x)  = {f(x)}")
print(f"df(x) = {df(x)}")
result = None'''),
    ("faq-sigmoid-grad", '''
def g(x):
  return jax.nn.sigmoid(x)
dg = jax.vmap(jax.grad(g))
x = jnp.array([-10.0, -1.0, 0.0, 1.0, 10.0])
with np.printoptions(suppress=True, precision=2):
  print(f"g(x)  = {g(x)}")
  print(f"dg(x) = {dg(x)}")
result = None'''),
    ("faq-tracer-type", '''
@jax.jit
def f(x):
  print(type(x).__name__)
  return x
result = f(jnp.arange(5))'''),
    # ---- thinking-in-jax
    ("think-linspace", '''
x_jnp = jnp.linspace(0, 10, 1000)
y_jnp = 2 * jnp.sin(x_jnp) * jnp.cos(x_jnp)
result = y_jnp[::111]'''),
    ("think-type", "result = type(jnp.linspace(0, 10, 1000)).__name__"),
    ("think-immutable", "x = jnp.arange(10)\nx[0] = 10\nresult = x"),
    ("think-at-set", "x = jnp.arange(10)\ny = x.at[0].set(10)\nprint(x)\nprint(y)\nresult = None"),
    ("think-add-promote", "result = jnp.add(1, 1.0)"),
    ("think-lax-add-mixed", "result = lax.add(1, 1.0)"),
    ("think-lax-add-explicit", "result = lax.add(jnp.float32(1), 1.0)"),
    ("think-convolve", "x = jnp.array([1, 2, 1])\ny = jnp.ones(10)\nresult = jnp.convolve(x, y)"),
    ("think-conv-general", '''
x = jnp.array([1, 2, 1])
y = jnp.ones(10)
result = lax.conv_general_dilated(
    x.reshape(1, 1, 3).astype(float),
    y.reshape(1, 1, 10),
    window_strides=(1,),
    padding=[(len(y) - 1, len(y) - 1)])
result = result[0, 0]'''),
    ("think-norm", '''
def norm(X):
  X = X - X.mean(0)
  return X / X.std(0)
norm_compiled = jax.jit(norm)
np.random.seed(1701)
X = jnp.array(np.random.rand(10000, 10))
result = np.allclose(norm(X), norm_compiled(X), atol=1E-6)'''),
    ("think-negatives", '''
def get_negatives(x):
  return x[x < 0]
x = jnp.array([-0.1, 0.5, -0.6, 1.0, -0.8, 0.2])
result = get_negatives(x)'''),
    ("think-negatives-jit", '''
def get_negatives(x):
  return x[x < 0]
x = jnp.array([-0.1, 0.5, -0.6, 1.0, -0.8, 0.2])
result = jax.jit(get_negatives)(x)'''),
    ("think-print-tracers", '''
@jax.jit
def f(x, y):
  print("Running f():")
  print(f"  x = {x}")
  print(f"  y = {y}")
  result = jnp.dot(x + 1, y + 1)
  print(f"  result = {result}")
  return result
x = np.arange(12.0).reshape(3, 4) / 10
y = np.arange(4.0) / 7
print(f(x, y))
x2 = np.arange(12.0).reshape(3, 4) / 3
print(f(x2, y))
result = None'''),
    ("think-make-jaxpr", '''
def f(x, y):
  return jnp.dot(x + 1, y + 1)
x = np.ones((3, 4), np.float32)
y = np.ones(4, np.float32)
result = jax.make_jaxpr(f)(x, y)'''),
    ("think-bool-error", '''
@jax.jit
def f(x, neg):
  return -x if neg else x
result = f(1, True)'''),
    ("think-static-true", '''
from functools import partial
@partial(jax.jit, static_argnums=(1,))
def f(x, neg):
  return -x if neg else x
print(repr(f(1, True)))
result = f(1, False)'''),
    ("think-reshape-traced", '''
@jax.jit
def f(x):
  return x.reshape(jnp.array(x.shape).prod())
x = jnp.ones((2, 3))
result = f(x)'''),
    ("think-shape-prints", '''
@jax.jit
def f(x):
  print(f"x = {x}")
  print(f"x.shape = {x.shape}")
  print(f"jnp.array(x.shape).prod() = {jnp.array(x.shape).prod()}")
x = jnp.ones((2, 3))
result = f(x)'''),
    ("think-reshape-np", '''
@jax.jit
def f(x):
  return x.reshape((np.prod(x.shape),))
x = jnp.ones((2, 3))
result = f(x)'''),
    # ---- sharp bits
    ("sharp-impure-print", '''
def impure_print_side_effect(x):
  print("Executing function")
  return x
print("First call: ", jax.jit(impure_print_side_effect)(4.))
print("Second call: ", jax.jit(impure_print_side_effect)(5.))
print("Third call, different type: ", jax.jit(impure_print_side_effect)(jnp.array([5.])))
result = None'''),
    ("sharp-impure-globals", '''
g = 0.
def impure_uses_globals(x):
  return x + g
f = jax.jit(impure_uses_globals)
print("First call: ", f(4.))
g = 10.
print("Second call: ", f(5.))
print("Third call, different type: ", f(jnp.array([4.])))
result = None'''),
    ("sharp-saves-global", '''
g = 0.
def impure_saves_global(x):
  global g
  g = x
  return x
print("First call: ", jax.jit(impure_saves_global)(4.))
print("Saved global: ", g)
result = None'''),
    ("sharp-internal-state", '''
def pure_uses_internal_state(x):
  state = dict(even=0, odd=0)
  for i in range(10):
    state['even' if i % 2 == 0 else 'odd'] += x
  return state['even'] + state['odd']
result = jax.jit(pure_uses_internal_state)(5.)'''),
    ("sharp-fori-array", '''
array = jnp.arange(10)
result = lax.fori_loop(0, 10, lambda i, x: x + array[i], 0)'''),
    ("sharp-fori-iterator", '''
iterator = iter(range(10))
result = lax.fori_loop(0, 10, lambda i, x: x + next(iterator), 0)'''),
    ("sharp-scan-jaxpr", '''
def func11(arr, extra):
  ones = jnp.ones(arr.shape)
  def body(carry, aelems):
    ae1, ae2 = aelems
    return (carry + ae1 * ae2 + extra, carry)
  return lax.scan(body, 0., (arr, ones))
result = jax.make_jaxpr(func11)(jnp.arange(16), 5.)'''),
    ("sharp-cond", '''
array_operand = jnp.array([0.])
result = lax.cond(True, lambda x: x + 1, lambda x: x - 1, array_operand)'''),
    ("sharp-numpy-inplace", '''
numpy_array = np.zeros((3, 3), dtype=np.float32)
numpy_array[1, :] = 1.0
result = numpy_array'''),
    ("sharp-jax-inplace", '''
jax_array = jnp.zeros((3, 3), dtype=jnp.float32)
jax_array[1, :] = 1.0
result = jax_array'''),
    ("sharp-at-set", '''
jax_array = jnp.zeros((3, 3), dtype=jnp.float32)
updated_array = jax_array.at[1, :].set(1.0)
print("updated array:\\n", updated_array)
print("original array unchanged:\\n", jax_array)
result = None'''),
    ("sharp-at-add", '''
jax_array = jnp.ones((5, 6))
print(jax_array)
new_jax_array = jax_array.at[::2, 3:].add(7.)
print(new_jax_array)
result = None'''),
    ("sharp-oob-np", "result = np.arange(10)[11]"),
    ("sharp-oob-jnp", "result = jnp.arange(10)[11]"),
    ("sharp-oob-get", "result = jnp.arange(10.0).at[11].get()"),
    ("sharp-oob-fill", "result = jnp.arange(10.0).at[11].get(mode='fill', fill_value=jnp.nan)"),
    ("sharp-sum-list", "result = jnp.sum([1, 2, 3])"),
    ("sharp-permissive-sum", '''
def permissive_sum(x):
  return jnp.sum(jnp.array(x))
x = list(range(10))
result = permissive_sum(x)'''),
    ("sharp-permissive-jaxpr", '''
def permissive_sum(x):
  return jnp.sum(jnp.array(x))
x = list(range(10))
result = jax.make_jaxpr(permissive_sum)(x)'''),
    ("sharp-sum-array", "x = list(range(10))\nresult = jnp.sum(jnp.array(x))"),
    ("sharp-nansum", '''
def nansum(x):
  mask = ~jnp.isnan(x)
  x_without_nans = x[mask]
  return x_without_nans.sum()
x = jnp.array([1, 2, jnp.nan, 3, 4])
print(nansum(x))
result = jax.jit(nansum)(x)'''),
    ("sharp-nansum-2", '''
def nansum_2(x):
  mask = ~jnp.isnan(x)
  return jnp.where(mask, x, 0).sum()
x = jnp.array([1, 2, jnp.nan, 3, 4])
result = nansum_2(x)'''),
    ("sharp-debug-nans-divide", '''
jax.config.update("jax_debug_nans", True)
try:
  result = jnp.divide(0., 0.)
finally:
  jax.config.update("jax_debug_nans", False)'''),
    ("sharp-debug-nans-jit", '''
@jax.jit
def f(x, y):
  a = x * y
  b = (x + y) / (x - y)
  c = a + 2
  return a + b * c
x = jnp.array([2., 0.])
y = jnp.array([3., 0.])
jax.config.update("jax_debug_nans", True)
try:
  result = f(x, y)
finally:
  jax.config.update("jax_debug_nans", False)'''),
    ("sharp-x64-off", '''
import warnings
with warnings.catch_warnings():
  warnings.simplefilter("ignore")
  x = jax.random.uniform(jax.random.key(0), (1000,), dtype=jnp.float64)
result = x.dtype'''),
    ("sharp-x64-on", '''
jax.config.update("jax_enable_x64", True)
try:
  x = jax.random.uniform(jax.random.key(0), (1000,), dtype=jnp.float64)
  result = x.dtype
finally:
  jax.config.update("jax_enable_x64", False)'''),
    ("sharp-cast-np", "result = np.arange(254.0, 258.0).astype('uint8')"),
    ("sharp-cast-jnp", "result = jnp.arange(254.0, 258.0).astype('uint8')"),
]
