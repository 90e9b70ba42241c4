"""A loopback HTTP server (127.0.0.1, ephemeral port) over a folder, for download tests.

``half=True`` sends only the first half of every file (with the full Content-Length); ``hold=True``
then keeps the connection open until :meth:`LoopbackServer.close` (a download that stalls), else it
hangs up (a truncated download).
"""
from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path


class LoopbackServer:
    def __init__(self, folder: Path, *, half: bool = False, hold: bool = False):
        release = self.release = threading.Event()

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if not half:
                    return super().do_GET()
                body = (Path(folder) / self.path.lstrip("/")).read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                if hold:
                    release.wait(60)
                self.close_connection = True

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                      functools.partial(Handler, directory=str(folder)))
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
