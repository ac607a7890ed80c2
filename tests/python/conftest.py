"""What the suites share: a real tesserad on a private socket for the
tests that need opencl devices (TESSERA_TEST_DAEMON names the binary; the
tests that use the fixture are skipped without it). One daemon serves the
whole session: the package opens its session with the daemon once, at
the first accelerator tensor, and keeps it."""
import os
import subprocess
import time

import pytest

DAEMON = os.environ.get("TESSERA_TEST_DAEMON")


@pytest.fixture(scope="session")
def daemon(tmp_path_factory):
    if not DAEMON:
        pytest.skip("TESSERA_TEST_DAEMON is not set")
    socket = str(tmp_path_factory.mktemp("tesserad") / "tesserad.sock")
    log = open(socket + ".log", "w")
    proc = subprocess.Popen([DAEMON, "--foreground", "--socket", socket], stdout=log,
                            stderr=subprocess.STDOUT)
    for _ in range(300):
        if os.path.exists(socket) or proc.poll() is not None:
            break
        time.sleep(0.05)
    assert proc.poll() is None and os.path.exists(socket), "tesserad did not start"
    # The package opens its session at the first accelerator tensor.
    os.environ["TESSERA_SOCKET"] = socket
    yield socket
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


