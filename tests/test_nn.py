"""xjit.nn against values, gradients and printed jaxprs recorded from JAX 0.10.2."""
import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp

VALUES = {'relu': [0.0, 0.0, 0.0, 0.5, 2.0], 'relu6': [0.0, 0.0, 0.0, 0.5, 2.0], 'sigmoid': [0.18242552876472473, 0.43782350420951843, 0.5, 0.622459352016449, 0.8807970285415649], 'softplus': [0.20141328871250153, 0.575939416885376, 0.6931471824645996, 0.9740769863128662, 2.1269280910491943], 'silu': [-0.2736383080482483, -0.10945587605237961, 0.0, 0.3112296760082245, 1.7615940570831299], 'log_sigmoid': [-1.7014132738113403, -0.825939416885376, -0.6931471824645996, -0.4740769863128662, -0.12692800164222717], 'soft_sign': [-0.6000000238418579, -0.20000000298023224, 0.0, 0.3333333432674408, 0.6666666865348816], 'gelu': [-0.10042843222618103, -0.10032464563846588, 0.0, 0.3457140028476715, 1.9545977115631104], 'elu': [-0.7768698334693909, -0.22119919955730438, 0.0, 0.5, 2.0], 'celu': [-0.7768698334693909, -0.22119919955730438, 0.0, 0.5, 2.0], 'selu': [-1.3658143281936646, -0.38889017701148987, 0.0, 0.5253505110740662, 2.1014020442962646], 'leaky_relu': [-0.014999999664723873, -0.0024999999441206455, 0.0, 0.5, 2.0], 'hard_tanh': [-1.0, -0.25, 0.0, 0.5, 1.0], 'softmax': [0.0202115997672081, 0.07054541260004044, 0.09058210253715515, 0.14934463798999786, 0.6693162322044373], 'log_softmax': [-3.901498556137085, -2.651498556137085, -2.401498556137085, -1.9014986753463745, -0.4014986455440521], 'standardize': [-1.4527384042739868, -0.35217902064323425, -0.13206712901592255, 0.3081566095352173, 1.6288279294967651]}
GRADS = {'relu': [0.0, 0.0, 0.0, 1.0, 1.0], 'sigmoid': [0.14914646744728088, 0.24613407254219055, 0.25, 0.23500370979309082, 0.10499362647533417], 'silu': [-0.041294172406196594, 0.3762899935245514, 0.5, 0.7399612069129944, 1.0907843112945557], 'gelu': [-0.12771080434322357, 0.3046458959579468, 0.5, 0.8673699498176575, 1.08609938621521], 'elu': [0.22313016653060913, 0.7788007855415344, 1.0, 1.0, 1.0], 'leaky_relu': [0.009999999776482582, 0.009999999776482582, 1.0, 1.0, 1.0], 'softplus': [0.18242552876472473, 0.43782350420951843, 0.5, 0.622459352016449, 0.8807970285415649]}
JAXPRS = {'relu': '{ lambda ; a:f32[5]. let\n    b:f32[5] = custom_jvp_call[\n      name=relu\n      call_jaxpr={ lambda ; c:f32[5]. let\n          d:f32[5] = jit[\n            name=relu\n            jaxpr={ lambda ; c:f32[5]. let d:f32[5] = max c 0.0:f32[] in (d,) }\n          ] c\n        in (d,) }\n      jvp=jvp\n      symbolic_zeros=False\n    ] a\n  in (b,) }', 'silu': '{ lambda ; a:f32[5]. let\n    b:f32[5] = jit[\n      name=silu\n      jaxpr={ lambda ; a:f32[5]. let\n          c:f32[5] = logistic a\n          b:f32[5] = mul a c\n        in (b,) }\n    ] a\n  in (b,) }', 'softmax': '{ lambda ; a:f32[5]. let\n    b:f32[] = reduce_max[axes=(0,)] a\n    c:f32[] = max -inf:f32[] b\n    d:f32[1] = broadcast_in_dim c\n    e:f32[1] = stop_gradient d\n    f:f32[5] = sub a e\n    g:f32[5] = exp f\n    h:f32[] = reduce_sum[axes=(0,) out_sharding=None] g\n    i:f32[1] = broadcast_in_dim h\n    j:f32[5] = div g i\n  in (j,) }', 'log_softmax': '{ lambda ; a:f32[5]. let\n    b:f32[5] = jit[\n      name=log_softmax\n      jaxpr={ lambda ; a:f32[5]. let\n          c:f32[] = reduce_max[axes=(0,)] a\n          d:f32[] = max -inf:f32[] c\n          e:f32[1] = broadcast_in_dim d\n          f:f32[1] = stop_gradient e\n          g:f32[5] = sub a f\n          h:f32[5] = exp g\n          i:f32[] = reduce_sum[axes=(0,) out_sharding=None] h\n          j:f32[1] = broadcast_in_dim i\n          k:f32[1] = log j\n          b:f32[5] = sub g k\n        in (b,) }\n    ] a\n  in (b,) }', 'gelu': '{ lambda ; a:f32[5]. let\n    b:f32[5] = integer_pow[y=3] a\n    c:f32[5] = mul 0.044714998453855515:f32[] b\n    d:f32[5] = add a c\n    e:f32[5] = mul 0.7978845834732056:f32[] d\n    f:f32[5] = tanh e\n    g:f32[5] = add 1.0:f32[] f\n    h:f32[5] = mul 0.5:f32[] g\n    i:f32[5] = mul a h\n  in (i,) }', 'sigmoid': '{ lambda ; a:f32[5]. let b:f32[5] = logistic a in (b,) }', 'leaky_relu': '{ lambda ; a:f32[5]. let\n    b:f32[5] = jit[\n      name=leaky_relu\n      jaxpr={ lambda ; a:f32[5]. let\n          c:bool[5] = ge a 0.0:f32[]\n          d:f32[5] = mul 0.009999999776482582:f32[] a\n          b:f32[5] = jit[\n            name=_where\n            jaxpr={ lambda ; c:bool[5] a:f32[5] d:f32[5]. let\n                b:f32[5] = select_n c d a\n              in (b,) }\n          ] c a d\n        in (b,) }\n    ] a\n  in (b,) }', 'elu': '{ lambda ; a:f32[5]. let\n    b:f32[5] = jit[\n      name=elu\n      jaxpr={ lambda ; a:f32[5]. let\n          c:bool[5] = gt a 0.0:f32[]\n          d:bool[5] = gt a 0.0:f32[]\n          e:f32[5] = jit[\n            name=_where\n            jaxpr={ lambda ; d:bool[5] f:f32[] a:f32[5]. let\n                g:f32[] = convert_element_type[\n                  new_dtype=float32\n                  weak_type=False\n                ] f\n                h:f32[5] = broadcast_in_dim g\n                e:f32[5] = select_n d a h\n              in (e,) }\n          ] d 0.0:f32[] a\n          i:f32[5] = expm1 e\n          j:f32[5] = mul 1.0:f32[] i\n          b:f32[5] = jit[\n            name=_where\n            jaxpr={ lambda ; c:bool[5] a:f32[5] j:f32[5]. let\n                b:f32[5] = select_n c j a\n              in (b,) }\n          ] c a j\n        in (b,) }\n    ] a\n  in (b,) }'}
ONE_HOT = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
LSE = 2.401498556137085

X = jnp.array([-1.5, -0.25, 0., 0.5, 2.])


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values(name):
    np.testing.assert_allclose(getattr(jax.nn, name)(X), VALUES[name], rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(GRADS))
def test_vmapped_grads(name):
    np.testing.assert_allclose(jax.vmap(jax.grad(getattr(jax.nn, name)))(X), GRADS[name],
                               rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_jaxprs(name):
    assert str(jax.make_jaxpr(getattr(jax.nn, name))(X)) == JAXPRS[name]


def test_one_hot_and_logsumexp():
    np.testing.assert_array_equal(jax.nn.one_hot(jnp.array([0, 2, 1]), 3), ONE_HOT)
    assert float(jax.nn.logsumexp(X)) == pytest.approx(LSE, rel=1e-6)
