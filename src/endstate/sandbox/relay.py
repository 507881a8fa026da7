"""Copy bytes one way until either side closes: the one relay every gateway socket uses."""

from __future__ import annotations

import asyncio
import contextlib


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
