"""Thread limits shared by numeric code (statistics, embeddings)."""

from __future__ import annotations

import contextlib


def one_blas_thread():
    """Limit BLAS to one thread for small matrix products.

    On 2 shared cores, multi-threaded OpenBLAS spends most of its time waiting on the other
    thread: embedding 48 short texts took 31 s with 2 threads and 1.8 s with one, and the power
    grid 40.5 s against 8.7 s (measured on the dev machine under load). Without threadpoolctl this
    is a no-op.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")
