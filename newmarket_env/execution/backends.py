"""Where work runs: this machine (``local``) or a Ray cluster (``ray``), for tournaments and training alike.

Below both :mod:`newmarket_env.eval` and :mod:`newmarket_env.train`, so neither imports the other for it.
Connecting: with no address a private local Ray is started (with ``num_cpus`` CPUs) and shut down
afterwards; ``"auto"`` or ``"HOST:PORT"`` joins a running cluster, which is left running. A ``HOST:PORT``
whose port is not 1..65535 is refused before anything starts; one that does not answer as a Ray cluster
within :data:`~newmarket_env.execution.ray_probe.RAY_CONNECT_TIMEOUT_S` fails in one line. A driver
already connected to Ray (``ray.init`` called by the caller) is used as it is.

The private local Ray listens on 127.0.0.1 only (Ray's own default is every interface of the machine:
anyone who can reach it could run code in it). To let other machines in, start a cluster for them with
``ray start --head --node-ip-address ...`` and give its address.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from newmarket_env.execution.ray_probe import probe_cluster

BACKENDS = ("local", "ray")
#: Times Ray re-runs a block whose worker process or node died. Errors raised by an agent are not
#: retried (they would fail again: every seed is the same).
RAY_MAX_RETRIES = 3
RAY_INSTALL_HINT = "pip install 'newmarket-env[ray]'"


def check_backend(backend: object, address: object) -> None:
    """Raise a one-line ValueError for a backend or address that cannot work (nothing is started)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r} is unknown; allowed: {', '.join(BACKENDS)}")
    if address is not None:
        if not isinstance(address, str) or not address.strip() or any(c.isspace() for c in address):
            raise ValueError(
                f"address={address!r} is not allowed; allowed: None (start a local Ray), 'auto' "
                f"or a cluster address such as '10.0.0.1:6379'"
            )
        if backend != "ray":
            raise ValueError(f"address={address!r} needs backend='ray'; allowed with backend={backend!r}: None")
        port = address.rpartition(":")[2]
        if ":" in address and port.isdecimal() and not 0 < int(port) < 65536:
            raise ValueError(
                f"address={address!r} has port {int(port)}, where no cluster can listen; allowed: a port 1..65535 "
                "(e.g. '10.0.0.1:6379'), or 'auto'"
            )
    if backend == "ray" and not ray_available():
        raise ValueError(f"backend='ray' needs Ray, which is not installed; install it with {RAY_INSTALL_HINT}")


def ray_available() -> bool:
    """Whether Ray is installed (found without importing it)."""
    return importlib.util.find_spec("ray") is not None


def map_on_ray(
    function: Callable[[Any, Any], Any],
    shared: Any,
    items: Sequence[Any],
    address: str | None = None,
    num_cpus: int | None = None,
    on_result: Callable[[int, Any], None] | None = None,
) -> list[Any]:
    """``function(shared, item)`` for every item, each a Ray task retried if its worker or node dies.

    Returns the values in the order of ``items``; ``on_result(index, value)`` is called as each arrives.
    ``shared`` is put in the object store once. Connects as the module docstring says: a private local
    Ray with ``num_cpus`` CPUs when ``address`` is None, else the cluster at ``address``; a driver already
    connected is used as it is. An exception raised by ``function`` is raised again here, as RuntimeError
    (with the original's message) when it was one, else as the original type where it can be rebuilt.
    """
    import ray  # optional: needs Ray (ray extra)

    started_here = connect_ray(address, num_cpus)
    try:
        return _run_tasks(ray, function, shared, items, on_result)
    finally:
        if started_here:
            ray.shutdown()


#: The environment variable by which Ray takes this machine's loopback address as its node address (its
#: default where Ray runs without clusters): its servers then listen on 127.0.0.1 only.
_RAY_SINGLE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextlib.contextmanager
def _loopback_only(ray: Any) -> Iterator[None]:
    """While a private local Ray starts: its node address is 127.0.0.1, so its servers (GCS, raylet,
    workers) listen there only. Ray reads the setting from its environment variable when imported (the
    driver may have imported it already: its constant is set too) and its processes from theirs."""
    from ray._private import ray_constants  # optional: needs Ray (ray extra)

    before_env, before_constant = os.environ.get(_RAY_SINGLE_MACHINE), ray_constants.ENABLE_RAY_CLUSTER
    os.environ[_RAY_SINGLE_MACHINE], ray_constants.ENABLE_RAY_CLUSTER = "0", False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = before_constant
        if before_env is None:
            del os.environ[_RAY_SINGLE_MACHINE]
        else:
            os.environ[_RAY_SINGLE_MACHINE] = before_env


def connect_ray(
    address: str | None = None,
    num_cpus: int | None = None,
    object_store_memory: int | None = None,
    num_gpus: int | None = None,
) -> bool:
    """Connect this driver as the module docstring says; whether it started a Ray it must shut down.

    A one-line ``RuntimeError`` when no Ray can be started or joined."""
    import ray  # optional: needs Ray (ray extra)

    if ray.is_initialized():
        return False
    # "local": a new private instance even when a `ray start` cluster runs on this machine
    # (plain ray.init() would join that one).
    kwargs: dict[str, Any] = {"address": address}
    if address is None:
        kwargs = {"address": "local", "num_cpus": num_cpus, "num_gpus": num_gpus}
        kwargs["object_store_memory"] = object_store_memory
    try:
        if address is not None:  # Ray itself would retry an address that does not answer for minutes
            probe_cluster(address)
        with _loopback_only(ray) if address is None else contextlib.nullcontext():
            ray.init(**kwargs, include_dashboard=False, log_to_driver=False, configure_logging=False)
    except Exception as err:  # no cluster there, a refused token...: one line, as for a failed agent
        where = "start a local Ray" if address is None else f"join the Ray cluster at {address!r}"
        raise RuntimeError(f"could not {where}: {type(err).__name__}: {_last_line(str(err))}") from None
    return True


def _run_tasks(ray, function, shared, items, on_result) -> list[Any]:
    task = ray.remote(num_cpus=1, max_retries=RAY_MAX_RETRIES, retry_exceptions=False)(_on_one_cpu)
    shared_ref = ray.put(shared)  # shipped to each node once, not once per task
    index_of = {task.remote(function, shared_ref, item): i for i, item in enumerate(items)}
    values: list[Any] = [None] * len(items)
    pending = list(index_of)
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                value = ray.get(done[0])
            except ray.exceptions.RayTaskError as err:  # e.g. an agent failed: its message names the session
                cause = getattr(err, "cause", None)
                if isinstance(cause, (ValueError, RuntimeError)):
                    raise type(cause)(str(cause)) from None
                raise RuntimeError(str(cause) if cause is not None else _last_line(str(err))) from None
            values[index_of[done[0]]] = value
            if on_result:
                on_result(index_of[done[0]], value)
    finally:
        for ref in pending:  # interrupted or failed: stop the tasks still queued on the cluster
            ray.cancel(ref, force=True)
    return values


def _on_one_cpu(function: Callable[[Any, Any], Any], shared: Any, item: Any) -> Any:
    """``function(shared, item)`` in a Ray task of one CPU: the compiled batches it makes step on one thread."""
    os.environ["NEWMARKET_THREADS"] = "1"
    return function(shared, item)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else text


__all__ = [
    "BACKENDS",
    "RAY_INSTALL_HINT",
    "RAY_MAX_RETRIES",
    "check_backend",
    "connect_ray",
    "map_on_ray",
    "ray_available",
]
