"""The app's audio socket: ``/venus/audio?token=...``, one per tab, both directions.

Beside `demos.handlers` (Gradio's events carry everything else). The page's script
(`demos/static/voice.js`) opens it on load with its tab's `demos.link.AudioLink` token
(the voice panel carries it); the socket then sends the reply's playout as it is decided
(`demos.playout`) and takes the microphone's frames as the page captures them. A frame
the page sends is placed on the session's axis at its capture time (its age when sent,
measured by the page, is taken off the session clock's reading on arrival: on one
machine or a LAN the transport's own delay is a few milliseconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from demos.playout import decode_mic
from demos.registry import SessionRegistry

__all__ = ["AUDIO_PATH", "add_audio_route"]

logger = logging.getLogger(__name__)

AUDIO_PATH = "/venus/audio"


def add_audio_route(app, registry: SessionRegistry, path: str = AUDIO_PATH) -> None:
    """Serve the audio socket on ``app`` (Gradio's FastAPI app), ahead of its own routes."""

    async def socket(websocket: WebSocket) -> None:
        session = registry.by_token(websocket.query_params.get("token", ""))
        if session is None:
            await websocket.close(code=4404, reason="no such tab: reload the page")
            return
        await websocket.accept()
        link = session.link
        connection = link.open()
        sender = asyncio.create_task(_send(websocket, link, connection))
        warned = False
        try:
            while link.current(connection):
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if message.get("bytes"):
                    try:
                        rate, age, pcm = decode_mic(message["bytes"])
                    except ValueError as exc:
                        if not warned:
                            logger.warning("tab %s: %s", session.session_id, exc)
                            warned = True
                        continue
                    link.mic_frames += 1
                    session.push_audio(rate, pcm, age_s=age)
                elif message.get("text"):
                    with contextlib.suppress(ValueError, TypeError, AttributeError):
                        report = json.loads(message["text"])
                        if report.get("op") == "played":
                            link.played(report)
        except WebSocketDisconnect:
            pass
        except Exception:  # a closed tab mid-frame, a session closing: never a traceback loop
            logger.exception("the audio socket of %s failed", session.session_id)
        finally:
            link.close(connection)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    app.router.routes.insert(0, WebSocketRoute(path, socket))


async def _send(websocket: WebSocket, link, connection: int) -> None:
    while link.current(connection):
        for message in await link.take(timeout=1.0):
            if isinstance(message, bytes):
                await websocket.send_bytes(message)
            else:
                await websocket.send_text(message)
