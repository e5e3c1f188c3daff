"""A real local Ray cluster of two nodes on this machine (``ray.cluster_utils.Cluster``), one per test process.

Session-scoped: starting a cluster takes 15-40 s here, and xdist would otherwise start one per module
on each worker. Tests that change the cluster (a node added, then removed) leave it as they found it.

Each node gets one CPU and a small object store: the machine has two cores. Modules that need Ray
start with ``pytest.importorskip("ray")``, so they skip (with the reason) only where Ray is not installed.
"""

import pytest

#: Small object stores: a tournament block's results are kilobytes.
OBJECT_STORE_BYTES = 80 * 1024 * 1024


@pytest.fixture(scope="session")
def ray_cluster():
    """A head node and one worker node, one CPU each, with this process connected as the driver."""
    import ray

    cluster = _start_cluster()
    ray.init(address=cluster.address)
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


def _start_cluster(attempts: int = 2):
    """Start the two nodes; on a busy machine a node can miss Ray's start-up deadline, so try once more."""
    from ray.cluster_utils import Cluster

    for attempt in range(attempts):
        cluster = Cluster()
        try:
            # No dashboard: it is the heaviest process of a head node and no test reads it.
            cluster.add_node(num_cpus=1, object_store_memory=OBJECT_STORE_BYTES, include_dashboard=False)
            cluster.add_node(num_cpus=1, object_store_memory=OBJECT_STORE_BYTES)
            cluster.wait_for_nodes()
            return cluster
        except Exception:
            cluster.shutdown()
            if attempt == attempts - 1:
                raise
