"""Jupyter kernels that run *this* interpreter and are reused for successive notebooks.

Starting a kernel and importing NumPy, SciPy, pandas, scikit-learn, numba and the toolkit takes
far longer than fitting a configuration of a reproduction. :class:`KernelSession` therefore starts
one kernel and executes notebook after notebook in it (papermill injects each
notebook's parameters; the user namespace is reset in between), and :class:`KernelPool` runs a few
sessions side by side, one thread each.

The kernel's specification is built in memory from ``sys.executable`` (no ``kernel.json`` is
written anywhere), so two environments running reproductions at the same time each start their
own interpreter. Kernels are started in a session of their own: a Ctrl-C typed in the terminal
reaches only the runner, which decides what to stop (:meth:`KernelPool.kill`). No code here
changes the working directory of the process: the kernel's working directory is given to the
kernel's process when it starts.
"""
from __future__ import annotations

import functools
import os
import platform
import queue
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

__all__ = ["KernelSession", "KernelPool", "kernel_spec", "reproducible_arithmetic", "KERNEL_NAME"]

KERNEL_NAME = "ssl-toolkit-python"
STARTUP_TIMEOUT = 120
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
# the ipykernel debugger's start-up notice about frozen modules is noise in batch runs
_QUIET = {"PYDEVD_DISABLE_FILE_VALIDATION": "1"}
#: NumPy's run-time dispatch targets above AVX2 (names of NumPy 1.26 to 2.x; a name a version does not
#: know is ignored by it): disabled so that its vectorised loops (exp, sums) take the AVX2 path everywhere.
_NUMPY_ABOVE_AVX2 = ("AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL "
                     "AVX512_SPR X86_V4")


def _cpu_flags() -> set:
    """The processor's feature flags as Linux lists them (empty elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def reproducible_arithmetic() -> dict:
    """The environment that gives the kernels one floating-point code path on every x86-64 machine
    with AVX2 and FMA: OpenBLAS's Haswell kernels (``OPENBLAS_CORETYPE``) and NumPy's AVX2 loops
    (``NPY_DISABLE_CPU_FEATURES``), whatever wider instructions the processor has.

    Why: the early-stopped iterates of the papers' PCG are not continuous in the rounding. A relative
    perturbation of 1e-15 of the inputs (a BLAS that sums in another order) grows to 1e-6 of the
    coefficients by iteration 50 and to 1e-2 by iteration 100 (Melacci & Belkin's G50C, LapSVM by PCG),
    so the stopping checks, the iteration counts and the errors depend on which kernels the BLAS picked.
    No tolerance on the decisions can absorb that; the same arithmetic can. The number of BLAS threads
    does not change a bit (OpenBLAS splits its products by rows and columns, never along a sum), so
    committed results are what ``ssl-toolkit reproduce`` computes on any such machine with the same
    package versions. Elsewhere (another processor family, or no AVX2) nothing is set, and a rerun may
    differ from the committed files in the last bits and, through the early-stopping decisions, beyond.
    """
    if platform.machine().lower() not in ("x86_64", "amd64") or not {"avx2", "fma"} <= _cpu_flags():
        return {}
    return {"OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": _NUMPY_ABOVE_AVX2}


def kernel_spec(threads: int | None = None, env: dict | None = None) -> dict:
    """The ``kernel.json`` content of a kernel running this interpreter.

    Parameters
    ----------
    threads : int or None, default=None
        Cap on the BLAS / OpenMP / numba threads of the kernel (set when several kernels run at once).
    env : dict or None, default=None
        Further environment variables of the kernel (for example the data settings made absolute).

    The kernel computes with :func:`reproducible_arithmetic`'s code paths.
    """
    variables = dict(_QUIET)
    variables.update(reproducible_arithmetic())
    if threads:
        variables.update({name: str(int(threads)) for name in _THREAD_VARIABLES})
    variables.update(env or {})
    return {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                     "--IPKernelApp.log_level=ERROR",
                     # batch kernels keep no IPython history: no sqlite file shared between kernels, and
                     # the execution count restarted per notebook does not collide with stored lines
                     "--HistoryManager.enabled=False"],
            "display_name": "Python (ssl-toolkit)", "language": "python", "env": variables,
            "metadata": {"debugger": False}}


def _spec_manager(spec: dict):
    """A kernel-spec manager that knows exactly one kernel, held in memory."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel

    class _OneKernel(KernelSpecManager):
        def find_kernel_specs(self):
            return {KERNEL_NAME: ""}

        def get_kernel_spec(self, kernel_name):
            if kernel_name != KERNEL_NAME:
                raise NoSuchKernel(kernel_name)
            return KernelSpec(resource_dir="", **spec)

    return _OneKernel()


class KernelSession:
    """One kernel, started on first use and reused for every notebook this session executes.

    Use a session from one thread (its owner); only :meth:`kill` may be called from another.

    Parameters
    ----------
    cwd : Path
        Working directory of the kernel's process (absolute).
    threads : int or None, default=None
        Thread cap of the kernel (see :func:`kernel_spec`).
    env : dict or None, default=None
        Extra environment of the kernel.
    log_path : Path or None, default=None
        The kernel's own stdout / stderr are appended there (discarded when None).
    """

    def __init__(self, cwd, *, threads=None, env=None, log_path=None):
        self.cwd = Path(cwd)
        self.spec = kernel_spec(threads, env)
        self.log_path = None if log_path is None else Path(log_path)
        self.km = self.kc = None
        self.starts = 0
        self._log = None
        self._killed = threading.Event()

    # -- life cycle (owner thread) --------------------------------------------------------------
    def start(self) -> None:
        """Start the kernel and wait until it answers."""
        from jupyter_client import AsyncKernelManager
        from jupyter_core.utils import run_sync

        if self._killed.is_set():
            raise KeyboardInterrupt("the kernel pool was stopped")
        self.cwd.mkdir(parents=True, exist_ok=True)
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = open(self.log_path, "ab")
        out = self._log if self._log is not None else subprocess.DEVNULL
        km = AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=_spec_manager(self.spec))
        self.km = km  # visible to kill() from now on
        run_sync(km.start_kernel)(cwd=str(self.cwd), stdout=out, stderr=out)
        if self._killed.is_set():  # killed while starting: the process exists only now
            self.kill()
            raise KeyboardInterrupt("the kernel pool was stopped")
        kc = km.client()
        kc.start_channels()
        self.kc = kc
        run_sync(kc.wait_for_ready)(timeout=STARTUP_TIMEOUT)
        self.starts += 1

    def alive(self) -> bool:
        from jupyter_core.utils import run_sync

        return self.km is not None and bool(run_sync(self.km.is_alive)())

    def ensure(self) -> None:
        """Start the kernel, or start a new one when the previous one died."""
        if self.km is not None and not self.alive():
            self.shutdown()
        if self.km is None:
            self.start()

    def reset(self) -> None:
        """Clear the user namespace (modules stay imported) and restart the execution count."""
        code = "get_ipython().run_line_magic('reset', '-f')\nget_ipython().execution_count = 1\n"
        msg_id = self.kc.execute(code, silent=True, store_history=False)
        self._wait_for_reply(msg_id, timeout=60)

    def _wait_for_reply(self, msg_id, *, timeout) -> dict:
        """The shell reply to ``msg_id``, polled in short steps so a killed kernel is noticed at once."""
        from jupyter_core.utils import run_sync

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._killed.is_set():
                raise KeyboardInterrupt("the kernel pool was stopped")
            try:
                reply = run_sync(self.kc.get_shell_msg)(timeout=0.25)
            except queue.Empty:
                if not self.alive():
                    raise RuntimeError("the kernel died") from None
                continue
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
                return reply
        raise TimeoutError(f"the kernel did not answer within {timeout} s")

    def run_notebook(self, input_path, output_path, parameters, *, timeout=None) -> None:
        """Execute a notebook with papermill in this kernel, writing ``output_path`` atomically.

        The steps of ``papermill.execute_notebook`` (parameterise, execute, raise on a failed cell,
        write) without its working-directory switching (``os.chdir`` around every read and write),
        which is not safe while other threads run. A notebook that fails is kept beside as
        ``NAME.failed.ipynb``, and the error is raised.
        """
        from papermill.engines import papermill_engines
        from papermill.execute import prepare_notebook_metadata, raise_for_execution_errors, remove_error_markers
        from papermill.iorw import load_notebook_node, write_ipynb
        from papermill.parameterize import parameterize_notebook

        _register_engine()
        self.ensure()
        self.reset()
        input_path, output_path = str(Path(input_path).resolve()), Path(output_path).resolve()
        tmp = output_path.with_name(f".{output_path.stem}.partial{output_path.suffix}")
        try:
            nb = load_notebook_node(input_path)
            if parameters:
                nb = parameterize_notebook(nb, parameters, False, kernel_name=KERNEL_NAME, language="python",
                                           engine_name=_ENGINE_NAME)
            nb = remove_error_markers(prepare_notebook_metadata(nb, input_path, str(tmp)))
            nb = papermill_engines.execute_notebook_with_engine(
                _ENGINE_NAME, nb, input_path=input_path, output_path=str(tmp), kernel_name=KERNEL_NAME,
                progress_bar=False, log_output=False, start_timeout=STARTUP_TIMEOUT, stdout_file=None,
                stderr_file=None, execution_timeout=timeout, session=self)
            raise_for_execution_errors(nb, str(tmp))
            write_ipynb(nb, str(tmp))
        except BaseException:
            if tmp.exists():
                os.replace(tmp, output_path.with_name(output_path.stem + ".failed.ipynb"))
            raise
        os.replace(tmp, output_path)

    def shutdown(self) -> None:
        """Stop the kernel (politely unless it was killed) and release its channels."""
        from jupyter_core.utils import run_sync

        try:
            if self.kc is not None:
                self.kc.stop_channels()
            if self.km is not None:
                if not self._killed.is_set() and run_sync(self.km.is_alive)():
                    run_sync(self.km.shutdown_kernel)(now=False)
                run_sync(self.km.cleanup_resources)()
        except Exception:  # the kernel is already gone: nothing left to release  # noqa: BLE001
            pass
        finally:
            self.km = self.kc = None
            if self._log is not None:
                self._log.close()
                self._log = None

    # -- any thread ----------------------------------------------------------------------------
    def kill(self) -> None:
        """Kill the kernel's process group at once (safe from any thread)."""
        self._killed.set()
        km = self.km
        provisioner = getattr(km, "provisioner", None) if km is not None else None
        pgid = getattr(provisioner, "pgid", None)
        pid = getattr(provisioner, "pid", None)
        try:
            if pgid and hasattr(os, "killpg"):
                os.killpg(pgid, signal.SIGKILL)
            elif pid:
                os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@functools.cache
def _register_engine():
    """A papermill engine executing in a :class:`KernelSession`'s running kernel."""
    from papermill.clientwrap import PapermillNotebookClient
    from papermill.engines import NBClientEngine, papermill_engines

    class SessionEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, log_output=False, stdout_file=None,
                                     stderr_file=None, start_timeout=60, execution_timeout=None, session=None,
                                     **kwargs):
            client = PapermillNotebookClient(nb_man, km=session.km, kernel_name=kernel_name,
                                             timeout=execution_timeout, startup_timeout=start_timeout, log=_QUIET_LOG,
                                             log_output=log_output, stdout_file=stdout_file,
                                             stderr_file=stderr_file)
            client.kc = session.kc  # the session's client: nothing is started or stopped per notebook
            return client.execute()

    papermill_engines.register(_ENGINE_NAME, SessionEngine)


_ENGINE_NAME = "ssl-toolkit-session"


def _quiet_log():
    """nbclient's messages ("Kernel died while waiting for execute reply") are reported by the runner
    as the configuration's error; they are not printed a second time under the progress bar."""
    import logging

    log = logging.getLogger("toolkit.reports.kernels")
    log.propagate = False
    log.addHandler(logging.NullHandler())
    return log


_QUIET_LOG = _quiet_log()


class KernelPool:
    """``n`` threads, each owning a :class:`KernelSession`, executing submitted jobs in order.

    A job is a callable ``job(session)``; :meth:`submit` returns a
    :class:`concurrent.futures.Future`. The threads are daemons: after :meth:`kill` nothing keeps
    the interpreter alive.
    """

    def __init__(self, n, cwd, *, threads=None, env=None, log_path=None):
        self._jobs: queue.Queue = queue.Queue()
        self._stopped = threading.Event()
        self.sessions = [KernelSession(cwd, threads=threads, env=env, log_path=log_path) for _ in range(max(1, n))]
        self._threads = [threading.Thread(target=self._work, args=(s,), name=f"ssl-toolkit-kernel-{i}", daemon=True)
                         for i, s in enumerate(self.sessions)]
        for thread in self._threads:
            thread.start()

    def submit(self, job) -> Future:
        future: Future = Future()
        self._jobs.put((future, job))
        return future

    def _work(self, session):
        try:
            while True:
                item = self._jobs.get()
                if item is None:
                    return
                future, job = item
                if not future.set_running_or_notify_cancel():
                    continue
                if self._stopped.is_set():
                    future.cancel()
                    continue
                try:
                    result = job(session)
                except BaseException as exc:  # handed to the caller through the future
                    future.set_exception(exc)
                else:
                    future.set_result(result)
        finally:
            session.shutdown()

    def close(self, timeout=60) -> None:
        """Let queued jobs finish, then stop every kernel."""
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join(timeout)

    def kill(self, timeout=5) -> None:
        """Cancel queued jobs, kill the running kernels and wait (at most ``timeout`` s) for the threads."""
        self._stopped.set()
        while True:
            try:
                item = self._jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
        for session in self.sessions:
            session.kill()
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join(timeout)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            self.kill()
