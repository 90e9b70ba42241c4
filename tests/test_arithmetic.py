"""Committed = computed: the reproductions' kernels compute with one code path on every x86-64
processor with AVX2 and FMA (:func:`toolkit.reports.reproducible_arithmetic`), because early-stopped
PCG does not forgive a rounding difference."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from toolkit.reports import _kernels, reproducible_arithmetic
from toolkit.reports._kernels import kernel_spec

#: A LapSVM by PCG long enough for rounding differences to grow (G50C-like: 50 dimensions, two Gaussians).
_RUN = """
import json, sys
import numpy as np
import toolkit
rng = np.random.default_rng(0)
X = rng.standard_normal((400, 50)) + np.where(rng.random(400) < 0.5, 0.3, -0.3)[:, None]
y = np.where(X.mean(axis=1) > 0, 1.0, -1.0)
X *= 1.0 + float(sys.argv[1]) * rng.standard_normal(X.shape)
steps = []
toolkit.lapsvm(X[:40], y[:40], X[40:], sigma=7.0, gamma_A=1e-6, gamma_I=1e-2, neighbors=10, degree=2,
               method="pcg", preconditioner="kernel", stop=None, tol=1e-14, max_iter=120, intercept=False,
               callback=lambda r: steps.append(np.asarray(r.alpha).ravel().copy()))
print(json.dumps([steps[k].tolist() for k in (0, 60, 119)]))
"""


def _iterates(noise=0.0, env=None):
    variables = {**os.environ, **(env or {})}
    out = subprocess.run([sys.executable, "-c", _RUN, str(noise)], capture_output=True, text=True, env=variables,
                         timeout=300, check=True).stdout
    return [np.asarray(a) for a in json.loads(out.strip().splitlines()[-1])]


def test_the_kernels_pin_the_code_paths_on_an_avx2_processor(monkeypatch):
    monkeypatch.setattr(_kernels.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(_kernels, "_cpu_flags", lambda: {"sse2", "avx", "avx2", "fma", "avx512f"})
    pinned = reproducible_arithmetic()
    assert pinned["OPENBLAS_CORETYPE"] == "Haswell"
    assert {"AVX512F", "AVX512_SKX", "X86_V4"} <= set(pinned["NPY_DISABLE_CPU_FEATURES"].split())
    assert {k: kernel_spec(2)["env"][k] for k in pinned} == pinned
    # nothing is forced where those kernels cannot run
    monkeypatch.setattr(_kernels, "_cpu_flags", lambda: {"sse2", "avx"})
    assert reproducible_arithmetic() == {} and "OPENBLAS_CORETYPE" not in kernel_spec(2)["env"]
    monkeypatch.setattr(_kernels.platform, "machine", lambda: "aarch64")
    monkeypatch.setattr(_kernels, "_cpu_flags", lambda: {"avx2", "fma"})
    assert reproducible_arithmetic() == {}


@pytest.mark.slow
def test_early_stopped_pcg_amplifies_rounding_so_only_the_same_arithmetic_reproduces_it():
    """Why the code paths are pinned: a relative perturbation of 1e-15 of the inputs, the size of a
    BLAS summing in another order, changes the 120th PCG iterate far beyond any tolerance a stopping
    decision could carry; with the pinned code paths one and two BLAS threads give the same bits."""
    pinned = reproducible_arithmetic()
    if not pinned:
        pytest.skip("this processor has no pinned code path (not x86-64 with AVX2 and FMA)")
    one = _iterates(env={**pinned, "OPENBLAS_NUM_THREADS": "1"})
    two = _iterates(env={**pinned, "OPENBLAS_NUM_THREADS": "2"})
    assert all(np.array_equal(a, b) for a, b in zip(one, two))
    nudged = _iterates(1e-15, env={**pinned, "OPENBLAS_NUM_THREADS": "1"})
    scale = np.abs(one[-1]).max()
    assert np.abs(nudged[0] - one[0]).max() < 1e-12 * np.abs(one[0]).max()     # the start agrees ...
    assert np.abs(nudged[-1] - one[-1]).max() > 1e-8 * scale                   # ... the 120th iterate does not
