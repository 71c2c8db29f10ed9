"""The Hugging Face cache and Hub, at the pinned revision: the loader's last resort.

Without network, ``hf_hub_download`` tries each file twice, the second time with five
retries and exponential back-off (huggingface_hub 2.4.0: about 24 s, with a log line per
attempt), and it retries a name that does not resolve as if it might. So before the Hub is
contacted, one TCP connection to it (or to the proxy the environment names for it) is tried
with a short timeout; when none opens, the reader gets the message at once.
"""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

from .messages import no_download
from .names import HUB_REPO, HUB_REVISION, TOKENIZER_FILES, WEIGHTS_FILE

PREFLIGHT_TIMEOUT_S = 2.0  # name resolution and connection together
_DEFAULT_PORTS = {"https": 443, "http": 80}


def _first_hop(url: SplitResult) -> tuple[str, int, str]:
    """(host, port, what it is) of the first machine a request to url goes to: the proxy
    that the environment names for it (as httpx, under huggingface_hub, would use), or the
    host itself."""
    host = url.hostname or ""
    port = url.port or _DEFAULT_PORTS.get(url.scheme, 80)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(url.scheme) or proxies.get("all")
    if proxy and not urllib.request.proxy_bypass(host):
        p = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        if p.hostname:
            return p.hostname, p.port or _DEFAULT_PORTS.get(p.scheme, 80), \
                f" (the proxy for {host})"
    return host, port, ""


def _resolve(host: str, port: int, timeout: float) -> list[tuple]:
    """getaddrinfo, given up after timeout (it has no timeout of its own)."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as e:
            outcome.append(e)

    # A daemon thread: a resolver that never answers must not hold the process at exit.
    worker = threading.Thread(target=run, name="hub-preflight-dns", daemon=True)
    worker.start()
    worker.join(timeout)
    if not outcome:
        raise TimeoutError(f"no answer within {timeout:g} s")
    if isinstance(outcome[0], OSError):
        raise outcome[0]
    return outcome[0]


def _why(e: OSError) -> str:
    return e.strerror or str(e) or type(e).__name__


def network_problem(endpoint: str, timeout: float = PREFLIGHT_TIMEOUT_S) -> str | None:
    """Why no network reaches the Hub at endpoint, in words; None when a TCP connection to
    it (or to its proxy) opens within timeout."""
    url = urlsplit(endpoint)
    host, port, via = _first_hop(url)
    if not host:
        return f"the Hub address '{endpoint}' (HF_ENDPOINT) names no host"
    deadline = time.monotonic() + timeout
    try:
        addresses = _resolve(host, port, timeout)
    except OSError as e:  # socket.gaierror, TimeoutError: no retry, a name is not a hiccup
        return f"no network is reachable: the name {host}{via} does not resolve ({_why(e)})"
    why = "no address"
    for family, kind, proto, _, address in addresses:
        left = deadline - time.monotonic()
        if left <= 0:
            why = f"no answer within {timeout:g} s"
            break
        try:
            with socket.socket(family, kind, proto) as s:
                s.settimeout(left)
                s.connect(address)
            return None
        except OSError as e:
            why = _why(e)
    return f"no network is reachable: no connection to {host} port {port}{via} ({why})"


def from_hub() -> tuple[Path, str]:
    """model.safetensors from the Hugging Face cache, or else downloaded (with the tokenizer
    files) from the Hub, at the pinned revision: (path, source name)."""
    import huggingface_hub as hub
    from huggingface_hub import constants

    cached = hub.try_to_load_from_cache(HUB_REPO, WEIGHTS_FILE, revision=HUB_REVISION)
    if isinstance(cached, str):
        return Path(cached), "Hugging Face cache"
    if hub.is_offline_mode():
        raise no_download("HF_HUB_OFFLINE is set, so the Hugging Face Hub is not contacted, "
                          "and the Hugging Face cache does not hold it")
    if problem := network_problem(constants.ENDPOINT):
        raise no_download(problem)
    try:
        for name in TOKENIZER_FILES:
            hub.hf_hub_download(HUB_REPO, name, revision=HUB_REVISION)
        path = hub.hf_hub_download(HUB_REPO, WEIGHTS_FILE, revision=HUB_REVISION)
    except Exception as e:  # the Hub client raises many types for "no network"
        raise no_download(f"{type(e).__name__}: {str(e)[:200]}") from None
    return Path(path), "Hugging Face Hub"
