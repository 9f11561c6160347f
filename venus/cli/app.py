"""``venus app``: serve the Gradio demo (``demos``) on the embedded defaults or a heavier frontend.

Only maps flags onto `demos.AppOptions` / `demos.SessionRegistry` and calls
`demos.ui.launch`; Gradio is imported when the command runs (the ``demo`` extra).
"""

from __future__ import annotations

import argparse
import os
import signal
import threading
from pathlib import Path

from venus.clock import perf_seconds


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "app", help="open the Gradio app: video QA, interruptions, background work",
        description="Serve the realtime-venus Gradio app. Each browser session gets its own "
        "video memory, conversation loop and background channel; its files are deleted "
        "when the tab closes.")
    p.add_argument("--server-name", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for your network)")
    p.add_argument("--server-port", type=int, default=7860, help="port (default 7860)")
    p.add_argument("--share", action="store_true",
                   help="also open a temporary public gradio.live link")
    p.add_argument("--frontend", default="embedded", metavar="SPEC",
                   help="conversational frontend: 'embedded' (CPU default), "
                   "'transformers:/local/model/dir' or 'openai:http://host:8000/v1'")
    p.add_argument("--model", default="default",
                   help="served model name for an 'openai:' frontend (default 'default')")
    p.add_argument("--max-upload-mb", type=float, default=500.0,
                   help="largest video upload accepted, in MB (default 500)")
    p.add_argument("--sample-minutes", type=float, default=3.0,
                   help="length of the sample lecture (default 3)")
    p.add_argument("--samples", default="samples",
                   help="folder for the sample lecture (default samples/)")
    p.add_argument("--workdir", default=None,
                   help="parent folder of the per-session temp folders (default: system temp)")
    p.add_argument("--no-tts", action="store_true", help="text replies only, no synthesized voice")
    p.add_argument("--voice", choices=("auto", "piper", "espeak"), default="auto",
                   help="the assistant's voice: auto (default) is Piper en_US-joe-medium when "
                   "the voices extra is installed, else eSpeak NG")
    p.add_argument("--auth", action="append", default=[], metavar="USER:PASS",
                   help="require a login; repeat for more users (use with --share)")
    p.add_argument("--auth-file", default=None, metavar="PATH",
                   help="require a login: a file with one USER:PASS per line ('#' comments)")
    p.add_argument("--ingest-workers", type=int, default=2,
                   help="uploads watched at once; others wait in line (default 2)")
    p.add_argument("--max-tabs", type=int, default=32,
                   help="browser tabs served at once (default 32)")
    p.add_argument("--analytics", action="store_true",
                   help="allow Gradio's usage analytics (off by default)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from demos.frontends import parse_frontend
    from demos.registry import SessionRegistry
    from demos.state import AppOptions
    from demos.voice import app_models

    spec = parse_frontend(args.frontend, args.model)  # a bad flag fails before serving
    app_models(args.voice)  # so does a voice that is not installed
    auth = parse_auth(args.auth, args.auth_file)
    options = AppOptions(root=Path(args.workdir) if args.workdir else None,
                         max_upload_mb=args.max_upload_mb, sample_minutes=args.sample_minutes,
                         samples_dir=Path(args.samples), frontend=spec,
                         ingest_workers=max(1, args.ingest_workers),
                         max_sessions=max(1, args.max_tabs), voice=args.voice)
    if not args.analytics:  # before Gradio is imported: nothing is reported anywhere
        os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    try:
        from demos.ui import launch
    except ImportError as exc:
        from memory.errors import MissingExtraError

        raise MissingExtraError(f"venus app needs Gradio ({exc}); install the extra: "
                                f"pip install 'realtime-venus[demo]'") from exc
    registry = SessionRegistry(options)
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` cleans up like Ctrl-C does
    login = f", login required for {len(auth)} user(s)" if auth else ""
    started = perf_seconds()

    def say_ready() -> None:
        if registry.ready.wait():
            voice = app_models(args.voice).voice
            print(f"venus app: models ready ({perf_seconds() - started:.1f} s); the "
                  f"assistant speaks with {voice.name}", flush=True)
    threading.Thread(target=say_ready, daemon=True, name="venus-ready").start()
    print(f"venus app: http://{args.server_name}:{args.server_port} "
          f"(frontend: {spec.describe()}{login})", flush=True)
    try:
        launch(registry, server_name=args.server_name, server_port=args.server_port,
               share=args.share, tts=not args.no_tts, auth=auth, analytics=args.analytics)
    finally:
        registry.close_all()
    return 0


def parse_auth(pairs: list[str], path: str | None) -> list[tuple[str, str]]:
    """``USER:PASS`` flags and the lines of an auth file as (user, password) pairs."""
    from venus.errors import ConfigError

    lines = [(p, "--auth") for p in pairs]
    if path:
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise ConfigError(f"cannot read the auth file {path} ({exc.strerror}); pass a "
                              f"file with one USER:PASS per line") from None
        lines += [(line.strip(), f"{path}:{n}") for n, line in enumerate(text.splitlines(), 1)
                  if line.strip() and not line.strip().startswith("#")]
    out = []
    for line, where in lines:
        user, sep, password = line.partition(":")
        if not sep or not user.strip() or not password:
            raise ConfigError(f"{where}: expected USER:PASS (a user name, a colon and a "
                              f"non-empty password)")
        out.append((user.strip(), password))
    return out


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt
