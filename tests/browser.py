"""Headless Debian Chromium driven over the W3C WebDriver HTTP API (chromedriver), with urllib only.

``Browser()`` starts its own chromedriver on a free loopback port and one Chromium session with a
fresh profile and every background-networking feature off (../shared/NOTES.md); closing it ends
the session and stops the chromedriver process group it started, and nothing else.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = os.environ.get("ELLIBIR_SCREENSHOTS") == "1"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--disable-crash-reporter", "--disable-breakpad")


KEYS = {"ArrowLeft": "\ue012", "ArrowUp": "\ue013", "ArrowRight": "\ue014", "ArrowDown": "\ue015",
        "PageUp": "\ue00e", "PageDown": "\ue00f", "Home": "\ue011", "End": "\ue010"}


def chromium_paths() -> tuple[str, str] | None:
    """(chromium, chromedriver) when both are installed, else None."""
    browser = CHROMIUM if os.access(CHROMIUM, os.X_OK) else shutil.which("chromium")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDriverError(RuntimeError):
    pass


class Browser:
    drivers: set[int] = set()  # pids of the chromedriver processes open in this process (not bots: see children())

    def __init__(self, width: int = 1280, height: int = 900, timeout: float = 30.0):
        found = chromium_paths()
        if found is None:
            raise WebDriverError("chromium and chromedriver are not installed")
        self.binary, driver = found
        self.timeout = timeout
        self.port = _free_port()
        self.profile = tempfile.mkdtemp(prefix="ellibir-chromium-")
        self.log = open(Path(self.profile).with_suffix(".driver.log"), "wb")
        self.proc = subprocess.Popen([driver, f"--port={self.port}", "--allowed-ips=127.0.0.1"],
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        Browser.drivers.add(self.proc.pid)
        self.session = None
        try:
            self._wait_ready()
            self.session = self._new_session(width, height)
        except BaseException:
            self.close()
            raise

    # The HTTP API ---------------------------------------------------------------------------------

    def _call(self, method: str, path: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as e:
            detail = json.loads(e.read() or b"{}").get("value", {})
            raise WebDriverError(f"{method} {path}: {detail.get('error')}: {detail.get('message', '')[:500]}") from None
        return answer.get("value")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise WebDriverError(f"chromedriver exited with code {self.proc.returncode}")
            try:
                if (self._call("GET", "/status") or {}).get("ready"):
                    return
            except (OSError, WebDriverError):
                pass
            time.sleep(0.1)
        raise WebDriverError("chromedriver did not become ready")

    def _new_session(self, width: int, height: int) -> str:
        args = [*FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}"]
        capabilities = {"browserName": "chrome", "goog:loggingPrefs": {"browser": "ALL"},
                        "goog:chromeOptions": {"binary": self.binary, "args": args}}
        value = self._call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
        return value["sessionId"]

    def _session_call(self, method: str, path: str, body=None):
        return self._call(method, f"/session/{self.session}{path}", body)

    # What tests use ------------------------------------------------------------------------------

    def open(self, url: str) -> None:
        self._session_call("POST", "/url", {"url": url})

    def run(self, script: str, *args):
        """The value of ``script`` (a function body; ``arguments`` holds ``args``) in the page."""
        return self._session_call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def click(self, css: str) -> None:
        """A real click (WebDriver's element click) on the first element matching ``css``."""
        found = self._session_call("POST", "/element", {"using": "css selector", "value": css})
        self._session_call("POST", f"/element/{next(iter(found.values()))}/click", {})

    def press(self, key: str) -> None:
        """A real key press and release (WebDriver actions); ``key`` is a character or one of KEYS."""
        value = KEYS.get(key, key)
        self._session_call("POST", "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]}]})

    def console(self) -> list[dict]:
        """The console messages since the last call: dicts with level, message, source, timestamp."""
        return self._session_call("POST", "/se/log", {"type": "browser"}) or []

    def resize(self, width: int, height: int) -> None:
        self._session_call("POST", "/window/rect", {"width": width, "height": height})

    def screenshot(self, path: Path, full_page: bool = True) -> Path | None:
        """A PNG of the page (the whole page when ``full_page``, up to 16,000 pixels high), for a person to
        look at: taken only with ``ELLIBIR_SCREENSHOTS=1`` (None otherwise). No test decides by it, and a
        whole report drawn at once costs Chromium two seconds of CPU."""
        if not SCREENSHOTS:
            return None
        if full_page:
            height = self.run("return Math.ceil(document.documentElement.scrollHeight);")
            width = self.run("return window.outerWidth;")
            self.resize(width, min(max(int(height), 200) + 120, 16000))
        data = base64.b64decode(self._session_call("GET", "/screenshot"))
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def close(self) -> None:
        if self.session is not None:
            try:
                self._call("DELETE", f"/session/{self.session}")
            except (OSError, WebDriverError):
                pass
            self.session = None
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)  # chromedriver's own group: it and the browser it started
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
            except ProcessLookupError:
                pass
        Browser.drivers.discard(self.proc.pid)
        self.log.close()
        Path(self.log.name).unlink(missing_ok=True)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
