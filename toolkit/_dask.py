"""Dask clusters for the toolkit: the ``scheduler`` argument of ``select`` and of the low-rank
LapSVM / LapRLSC (``lapsvm(..., n_basis=r, scheduler=...)``), and joblib's dask backend for ``select``.

The ``scheduler`` argument of ``select`` (None, a scheduler address or a ``distributed.Client``) is
checked here, the client is opened (and closed again when ``select`` opened it), and the jobs go
through joblib's dask backend (``joblib.parallel_config(backend="dask")``): every (kernel setting,
fold) job is one task that computes its kernel matrix / eigendecomposition on the worker that runs
it and ships back only its tidy rows. ``X`` and ``y`` are scattered once per selection, by joblib
itself (large arguments, under a fresh key each time), and the tasks refer to them instead of
carrying a copy each.
"""
from __future__ import annotations

import contextlib
import socket
import struct
import time

__all__ = ["CONNECT_TIMEOUT", "check_scheduler", "dask_client", "dask_backend"]

#: Seconds ``select`` waits for a scheduler named by its address to answer (opening the socket, then
#: the Dask handshake) before it raises an ``OSError`` naming the address.
CONNECT_TIMEOUT = 10.0

#: A Dask TCP message starts with its byte count as 8 little-endian bytes (distributed.comm.tcp);
#: a scheduler's greeting (its handshake) is a few hundred bytes.
_FRAME_HEADER = 8
_MAX_HANDSHAKE = 1 << 20

INSTALL = 'pip install "ssl-toolkit[dask]"'
EXAMPLE = "'tcp://127.0.0.1:8786'"


def _import_distributed(func):
    try:
        import distributed
    except ImportError as exc:
        raise ImportError(f"The 'scheduler' parameter of {func} needs dask.distributed (the 'dask' extra), which could not be imported "
                          f"({exc}). Install it with: {INSTALL}") from exc
    return distributed


def check_scheduler(scheduler, func="select"):
    """Check the ``scheduler`` argument once, at the public boundary; return it unchanged.

    Parameters
    ----------
    scheduler : None, str or distributed.Client
        None (local processes), a scheduler address such as ``"tcp://127.0.0.1:8786"``, or a client.
    func : str, default="select"
        The public function named in the messages.

    Raises
    ------
    TypeError
        For anything else.
    ValueError
        For an empty address, or a client that is not running.
    ImportError
        When ``distributed`` cannot be imported and an address is given.
    """
    if scheduler is None:
        return None
    if isinstance(scheduler, str):
        if not scheduler.strip():
            raise ValueError(f"The 'scheduler' parameter of {func} must be None, a Dask scheduler address such as "
                             f"{EXAMPLE} or a distributed.Client. Got an empty string instead.")
        _import_distributed(func)
        return scheduler
    try:
        from distributed import Client
    except ImportError:
        Client = None
    if Client is None or not isinstance(scheduler, Client):
        raise TypeError(f"The 'scheduler' parameter of {func} must be None, a Dask scheduler address such as "
                        f"{EXAMPLE} or a distributed.Client. Got {type(scheduler).__name__} ({scheduler!r}) instead.")
    if scheduler.status != "running":
        raise ValueError(f"The 'scheduler' parameter of {func} must be a running distributed.Client. Got a client "
                         f"with status {scheduler.status!r} instead.")
    return scheduler


def _probe(address, func, timeout):
    """Open and close a TCP connection to a ``tcp://`` / ``tls://`` address: a refused or unreachable
    scheduler is reported at once, with the address, instead of after the client's own retries."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location) if scheme in ("tcp", "tls") else (None, None)
    except ValueError as exc:
        raise ValueError(f"The 'scheduler' parameter of {func} must be a Dask scheduler address such as "
                         f"{EXAMPLE}. Got {address!r} instead ({exc}).") from exc
    if host is None:
        return False
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise OSError(f"The Dask scheduler at {address!r} (the 'scheduler' parameter of {func}) could not be reached "
                      f"within {timeout:g} s: {exc}. Start one with `dask scheduler` and workers with "
                      f"`dask worker {address}`, or pass scheduler=None to run locally.") from exc
    with sock:
        if scheme != "tcp":           # TLS: the client speaks first, no greeting to read (see dask_client)
            return False
        # A Dask server greets every connection with its handshake, framed by its byte count (8 bytes,
        # little-endian): distributed.Client would wait for it without a deadline, so a port that
        # accepts and never speaks Dask (a stuck process, another service) would block it for good.
        head = b""
        try:
            while len(head) < _FRAME_HEADER:
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                chunk = sock.recv(_FRAME_HEADER - len(head))
                if not chunk:
                    break
                head += chunk
        except OSError:               # socket.timeout included
            pass
    size = struct.unpack("Q", head)[0] if len(head) == _FRAME_HEADER else None
    if size is None or not 0 < size <= _MAX_HANDSHAKE:
        found = (f"{len(head)} bytes" if len(head) < _FRAME_HEADER else f"bytes {head!r}, not a Dask handshake")
        raise TimeoutError(f"The address {address!r} (the 'scheduler' parameter of {func}) accepts connections but "
                           f"did not greet in the Dask protocol within {timeout:g} s (got {found}). Is it a Dask "
                           f"scheduler? Check the port (`dask scheduler` prints its address), or pass "
                           "scheduler=None to run locally.")
    return True


def _client_with_deadline(distributed, address, func, timeout):
    """``distributed.Client`` opened in a helper thread, given up after ``timeout`` plus a margin: for
    the addresses whose greeting cannot be read beforehand (TLS, other schemes), where the client
    would wait for the handshake without a deadline."""
    import threading

    box = {}

    def open_client():
        try:
            box["client"] = distributed.Client(address, timeout=timeout, set_as_default=False)
        except BaseException as exc:          # handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=open_client, daemon=True)
    worker.start()
    worker.join(timeout + 5.0)
    if worker.is_alive():
        raise TimeoutError(f"The Dask scheduler at {address!r} (the 'scheduler' parameter of {func}) did not complete "
                           f"the Dask handshake within {timeout + 5.0:g} s. Is it a Dask scheduler? Or pass "
                           "scheduler=None to run locally.")
    if "error" in box:
        raise box["error"]
    return box["client"]


@contextlib.contextmanager
def dask_client(scheduler, func="select", *, timeout=CONNECT_TIMEOUT):
    """The ``distributed.Client`` of a checked ``scheduler`` argument, as a context manager.

    A client given is yielded as it is and left open; for an address a client is opened (connection
    timeout ``timeout`` seconds) and closed on exit.

    Raises
    ------
    OSError
        When the scheduler at the address cannot be reached in time (the message names the address).
    """
    distributed = _import_distributed(func)
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    probed = _probe(scheduler, func, timeout)
    try:
        client = (distributed.Client(scheduler, timeout=timeout, set_as_default=False) if probed else
                  _client_with_deadline(distributed, scheduler, func, timeout))
    except OSError as exc:            # TimeoutError included: the socket opened, the handshake did not finish
        raise OSError(f"The Dask scheduler at {scheduler!r} (the 'scheduler' parameter of {func}) did not answer "
                      f"within {timeout:g} s: {exc}.") from exc
    except ValueError as exc:
        raise ValueError(f"The 'scheduler' parameter of {func} must be a Dask scheduler address such as {EXAMPLE}. "
                         f"Got {scheduler!r} instead ({exc}).") from exc
    try:
        yield client
    finally:
        client.close()


@contextlib.contextmanager
def dask_backend(client):
    """joblib's dask backend on ``client``.

    Inside, ``joblib.Parallel(n_jobs=-1)`` submits one Dask task per batch of calls. An argument
    larger than 1 kB (``X``, ``y``) is scattered once per ``Parallel`` call under a fresh key and
    travels as a reference; the workers that need it fetch it from each other. (joblib's own
    ``scatter=[X, y]`` would broadcast under a key hashed from the data: two selections of the same
    data in a row then scatter to a key the scheduler is still releasing, and the second one's tasks
    fail with "lost dependencies", dask/distributed#3703 -- seen in a fresh-clone CI run.)
    """
    from joblib import parallel_config

    with parallel_config(backend="dask", client=client):
        yield
