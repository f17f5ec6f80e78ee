"""jdwpx-probe run by a test with --format json: its lines, parsed, as they come."""

import json
import queue
import subprocess
import threading


class ProbeRun:
    def __init__(self, argv, env=None):
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self._lines: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self._lines.put(json.loads(line))

    def next(self, timeout: float) -> dict:
        """The next line (queue.Empty after timeout seconds)."""
        return self._lines.get(timeout=timeout)

    def drain(self) -> list:
        """The lines read so far and not taken yet."""
        out = []
        while not self._lines.empty():
            out.append(self._lines.get_nowait())
        return out

    def finish(self, timeout: float) -> int:
        """Waits for the tool's end and for its last lines (subprocess.TimeoutExpired)."""
        rc = self.proc.wait(timeout)
        self._reader.join(timeout)
        return rc

    def stderr(self) -> str:
        return self.proc.stderr.read()

    def close(self, timeout: float = 60):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout)
        self._reader.join(timeout)
        self.proc.stdout.close()
        self.proc.stderr.close()
