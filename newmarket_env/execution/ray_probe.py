"""Does a Ray cluster answer at this address? Asked before ``ray.init``, which waits minutes for one.

``ray.init(address=...)`` keeps retrying an address where nothing (or something else) answers, for
many minutes before it says anything. :func:`probe_cluster` asks first, within
:data:`RAY_CONNECT_TIMEOUT_S`: the host name must resolve, the port must take a TCP connection, and
what answers must speak HTTP/2, as Ray's GCS (a gRPC server) does: it answers the HTTP/2 preface
with a SETTINGS frame at once. A failure is a one-line ``ConnectionError`` saying what was found and
how long it waited.
"""

from __future__ import annotations

import socket
import time

#: The longest wait for a cluster address to answer (the resolving, the connection and the reply).
RAY_CONNECT_TIMEOUT_S = 20.0
#: What an HTTP/2 client sends first: the connection preface, then an empty SETTINGS frame.
_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_SETTINGS = 4  # the frame type a server's first frame must have


def host_and_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of ``HOST:PORT`` (``[v6]:PORT`` too); None for anything else (``auto``).

    >>> host_and_port("10.0.0.1:6379"), host_and_port("[::1]:6379"), host_and_port("auto")
    (('10.0.0.1', 6379), ('::1', 6379), None)
    """
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdecimal() or not 0 < int(port) < 65536:
        return None
    return host.strip("[]"), int(port)


def probe_cluster(address: str, timeout: float | None = None) -> None:
    """Return if something that speaks gRPC answers at ``address`` (``HOST:PORT``) within ``timeout``
    seconds; else ``ConnectionError`` in one line. Other addresses (``auto``) are left to Ray."""
    timeout = RAY_CONNECT_TIMEOUT_S if timeout is None else timeout
    where = host_and_port(address)
    if where is None:
        return
    began = time.monotonic()

    def waited() -> str:
        return f"gave up after {time.monotonic() - began:.1f} s (the limit is {timeout:g} s)"

    try:
        with socket.create_connection(where, timeout=timeout) as connection:
            connection.settimeout(max(0.1, timeout - (time.monotonic() - began)))
            connection.sendall(_PREFACE)
            header = _read(connection, 9)
    except socket.gaierror as err:
        raise ConnectionError(f"the host name {where[0]!r} does not resolve ({err.strerror}); {waited()}") from None
    except TimeoutError:
        raise ConnectionError(f"no answer from {address}; {waited()}") from None
    except OSError as err:
        raise ConnectionError(f"nothing takes connections at {address} ({err.strerror or err}); {waited()}") from None
    if len(header) < 9 or header[3] != _SETTINGS:
        raise ConnectionError(f"what answers at {address} is not a Ray cluster (it does not speak gRPC); {waited()}")


def _read(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data
