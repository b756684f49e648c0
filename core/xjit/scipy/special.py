"""``xjit.scipy.special``, as ``jax.scipy.special``."""
from xjit._src.scipy.special import (  # noqa: F401
    bernoulli, beta, betainc, betaln, boxcox, boxcox1p, comb, digamma, entr, erf, erfc, erfinv,
    expit, factorial, gamma, gammainc, gammaincc, gammaln, gammasgn, i0, i0e, i1, i1e, kl_div,
    log_softmax, logit, logsumexp, multigammaln, poch, polygamma, rel_entr, softmax, xlog1py, xlogy,
    zeta)
from xjit._src.scipy.special_ndtr import log_ndtr, ndtr, ndtri, spence  # noqa: F401
from xjit._src.scipy.special_expint import exp1, expi, expn  # noqa: F401
from xjit._src.scipy.special_error import dawsn, erfcx, loggamma, wofz  # noqa: F401
from xjit._src.scipy.special_hypergeometric import hyp1f1, hyp2f1  # noqa: F401
from xjit._src.scipy.special_integrals import bessel_jn, fresnel, owens_t, sici  # noqa: F401
from xjit._src.scipy.special_sph_harm import sph_harm_y  # noqa: F401
