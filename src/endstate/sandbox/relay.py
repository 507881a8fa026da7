"""Copy bytes one way until either side closes: the one relay every gateway socket uses."""

from __future__ import annotations

import asyncio
import contextlib

# Connections queued before a gateway socket's server accepts them. Past this the kernel
# fails a connect before the server sees it, so the connection would be neither relayed nor
# counted refused; the sandbox's forwarder retries such a connect, and this depth keeps
# retries rare.
BACKLOG = 1024


async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()
