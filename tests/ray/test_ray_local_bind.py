"""A Ray started for one run (``--backend ray`` without ``--address``) listens on 127.0.0.1 only, and an
address whose port no server can have is refused in one line before anything starts."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install 'newmarket-env[ray]')")

HANG_GUARD_S = 300  # only so a hang fails instead of blocking CI; never an assertion on speed

# Run in a process of its own: the tests' driver is connected to their cluster already. While the private Ray
# runs (in the callback of its one task), every socket its processes listen on is read from /proc.
PROBE = textwrap.dedent(
    """
    import ipaddress, json, os

    from newmarket_env.execution.backends import map_on_ray

    def descendants(root):
        parents = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    parents[int(name)] = int(open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()[1])
                except OSError:
                    pass
        found, added = {root}, True
        while added:
            more = {pid for pid, parent in parents.items() if parent in found} - found
            found |= more
            added = bool(more)
        return found

    def listening(pids):
        inodes = set()
        for pid in pids:
            try:
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if link.startswith("socket:["):
                        inodes.add(link[8:-1])
            except OSError:
                pass
        addresses = []
        for table in ("tcp", "tcp6"):
            for line in open(f"/proc/net/{table}").read().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # LISTEN, by one of the processes
                    raw = bytes.fromhex(fields[1].split(":")[0])
                    # /proc writes each 32-bit word in the machine's order (little-endian here)
                    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
                    ip = ipaddress.ip_address(words)
                    addresses.append(str(getattr(ip, "ipv4_mapped", None) or ip))  # ::ffff:7f00:1 is 127.0.0.1
        return addresses

    def node_ip(shared, item):
        import ray
        return ray.util.get_node_ip_address()

    seen = {}
    def look(index, value):
        seen["listening"] = listening(descendants(os.getpid()))

    ips = map_on_ray(node_ip, None, [0], num_cpus=1, on_result=look)
    print(json.dumps({"node_ips": ips, **seen}))
    """
)


def test_a_private_ray_listens_on_the_loopback_address_only():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["node_ips"] == ["127.0.0.1"]
    assert len(out["listening"]) >= 2, out  # the GCS and the raylet at least
    assert all(ip in ("127.0.0.1", "::1", "::ffff:127.0.0.1") for ip in out["listening"]), out


@pytest.mark.parametrize("port", ["0", "99999", "65536"])
def test_an_address_whose_port_cannot_be_a_servers_is_one_line(port, tmp_path):
    address = f"127.0.0.1:{port}"
    command = [sys.executable, "-m", "newmarket_env.cli", "tournament", "--agents", "random,random,random,random"]
    command += ["--blocks", "1", "--backend", "ray", "--address", address, "--out", str(tmp_path / "out")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 2 and done.stderr == (
        f"newmarket tournament: error: address={address!r} has port {int(port)}, where no cluster can listen; "
        "allowed: a port 1..65535 (e.g. '10.0.0.1:6379'), or 'auto'\n"
    )
    assert not (tmp_path / "out").exists()
